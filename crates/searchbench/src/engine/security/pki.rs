//! The cluster's CA and its node certificate (PEM; keys as PKCS#8, which the plugin requires).
//!
//! A node that lasts (`--data DIR`) keeps its CA's key, so each start signs a new node
//! certificate, for the addresses it is bound to that time, that the clients' copy of the CA
//! still verifies. A node made afresh drops the key once it has signed.

use std::net::{IpAddr, Ipv4Addr};

use rcgen::{
    BasicConstraints, Certificate, CertificateParams, DistinguishedName, DnType,
    ExtendedKeyUsagePurpose, IsCa, KeyPair, KeyUsagePurpose, SanType,
};

use super::super::EngineError;

/// A CA: its certificate and its key.
pub struct Ca {
    pub cert_pem: String,
    pub key_pem: String,
}

/// A node's certificate and key.
pub struct NodeCert {
    pub cert_pem: String,
    pub key_pem: String,
}

fn bad(e: rcgen::Error) -> EngineError {
    EngineError::BadOption {
        what: "the cluster's certificates".into(),
        reason: format!("cannot make them: {e}"),
    }
}

/// The CA's subject and use. The same every time: a certificate re-made from a kept key
/// with these is the issuer the kept CA certificate names, so what it signs verifies
/// against the clients' copy.
fn ca_params() -> CertificateParams {
    let mut ca = CertificateParams::default();
    ca.is_ca = IsCa::Ca(BasicConstraints::Unconstrained);
    ca.distinguished_name = DistinguishedName::new();
    ca.distinguished_name
        .push(DnType::OrganizationName, "searchbench");
    ca.distinguished_name
        .push(DnType::CommonName, "searchbench local CA");
    ca.key_usages = vec![KeyUsagePurpose::KeyCertSign, KeyUsagePurpose::CrlSign];
    ca
}

impl Ca {
    pub fn generate() -> Result<Ca, EngineError> {
        let key = KeyPair::generate().map_err(bad)?;
        let cert = ca_params().self_signed(&key).map_err(bad)?;
        Ok(Ca {
            cert_pem: cert.pem(),
            key_pem: key.serialize_pem(),
        })
    }

    /// Signs a certificate for a node reached at `localhost`, 127.0.0.1 and `addresses`,
    /// subject `CN=localhost,OU=node,O=searchbench` (the plugin's `nodes_dn`).
    pub fn sign_node(&self, addresses: &[IpAddr]) -> Result<NodeCert, EngineError> {
        let ca_key = KeyPair::from_pem(&self.key_pem).map_err(bad)?;
        let issuer: Certificate = ca_params().self_signed(&ca_key).map_err(bad)?;
        let node_key = KeyPair::generate().map_err(bad)?;
        let mut node = CertificateParams::new(vec!["localhost".to_string()]).map_err(bad)?;
        let mut ips = vec![IpAddr::V4(Ipv4Addr::LOCALHOST)];
        for address in addresses {
            if !ips.contains(address) {
                ips.push(*address);
            }
        }
        node.subject_alt_names
            .extend(ips.into_iter().map(SanType::IpAddress));
        // Pushed most general first: RFC 2253 writes it back to front, as `NODE_DN`.
        node.distinguished_name = DistinguishedName::new();
        node.distinguished_name
            .push(DnType::OrganizationName, "searchbench");
        node.distinguished_name
            .push(DnType::OrganizationalUnitName, "node");
        node.distinguished_name
            .push(DnType::CommonName, "localhost");
        node.key_usages = vec![
            KeyUsagePurpose::DigitalSignature,
            KeyUsagePurpose::KeyEncipherment,
        ];
        // The same certificate serves HTTP and both ends of transport.
        node.extended_key_usages = vec![
            ExtendedKeyUsagePurpose::ServerAuth,
            ExtendedKeyUsagePurpose::ClientAuth,
        ];
        let cert = node.signed_by(&node_key, &issuer, &ca_key).map_err(bad)?;
        Ok(NodeCert {
            cert_pem: cert.pem(),
            key_pem: node_key.serialize_pem(),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A node certificate signed by a CA re-made from its kept key verifies against the CA
    /// certificate the clients were given at the first start (checked by rustls' verifier,
    /// as reqwest checks it), and names the bound address.
    #[test]
    fn a_kept_ca_signs_certificates_its_first_copy_verifies() {
        use rustls::client::danger::ServerCertVerifier;
        use rustls::pki_types::pem::PemObject;
        use rustls::pki_types::{CertificateDer, ServerName, UnixTime};
        let ca = Ca::generate().unwrap();
        let kept = Ca {
            cert_pem: ca.cert_pem.clone(),
            key_pem: ca.key_pem.clone(),
        };
        let bound: IpAddr = "127.0.0.2".parse().unwrap();
        let node = kept.sign_node(&[bound]).unwrap();
        let der = |pem: &str| CertificateDer::from_pem_slice(pem.as_bytes()).unwrap();
        let mut roots = rustls::RootCertStore::empty();
        roots.add(der(&ca.cert_pem)).unwrap();
        let verifier = rustls::client::WebPkiServerVerifier::builder_with_provider(
            roots.into(),
            rustls::crypto::ring::default_provider().into(),
        )
        .build()
        .unwrap();
        let now = UnixTime::now();
        for name in ["127.0.0.2", "127.0.0.1", "localhost"] {
            let server = ServerName::try_from(name).unwrap();
            verifier
                .verify_server_cert(&der(&node.cert_pem), &[], &server, &[], now)
                .unwrap_or_else(|e| panic!("{name}: {e}"));
        }
        let other = ServerName::try_from("127.0.0.3").unwrap();
        assert!(verifier
            .verify_server_cert(&der(&node.cert_pem), &[], &other, &[], now)
            .is_err());
        // Another CA's certificate does not verify.
        let stranger = Ca::generate().unwrap().sign_node(&[]).unwrap();
        let local = ServerName::try_from("localhost").unwrap();
        assert!(verifier
            .verify_server_cert(&der(&stranger.cert_pem), &[], &local, &[], now)
            .is_err());
    }
}
