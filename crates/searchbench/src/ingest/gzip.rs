//! Gzip of bulk bodies into a reused buffer (fast level: the point is fewer bytes on the wire
//! for little CPU).

use std::io::Write;

/// Compresses `body` into `out`, replacing what `out` held but keeping its allocation.
pub fn compress(body: &[u8], out: &mut Vec<u8>) -> std::io::Result<()> {
    out.clear();
    let mut encoder =
        flate2::write::GzEncoder::new(std::mem::take(out), flate2::Compression::fast());
    encoder.write_all(body)?;
    *out = encoder.finish()?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn round_trips() {
        use std::io::Read;
        let mut out = Vec::new();
        compress(b"{\"index\":{}}\n{\"a\":1}\n", &mut out).unwrap();
        let mut back = String::new();
        flate2::read::GzDecoder::new(&out[..])
            .read_to_string(&mut back)
            .unwrap();
        assert_eq!(back, "{\"index\":{}}\n{\"a\":1}\n");
    }
}
