//! Credentials, kept out of every printout.

use std::fmt;

use base64::Engine as _;

/// A secret string whose Debug and Display never show it.
#[derive(Clone, PartialEq, Eq)]
pub struct Secret(String);

impl Secret {
    pub fn new(value: impl Into<String>) -> Self {
        Secret(value.into())
    }
    pub fn expose(&self) -> &str {
        &self.0
    }
}

impl fmt::Debug for Secret {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("Secret(***)")
    }
}

impl fmt::Display for Secret {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("***")
    }
}

/// How requests authenticate.
#[derive(Debug, Clone, Default)]
pub enum Auth {
    #[default]
    None,
    Basic {
        user: String,
        password: Secret,
    },
    /// An Elasticsearch API key, already in its encoded `id:key` base64 form.
    ApiKey(Secret),
    Bearer(Secret),
}

impl Auth {
    /// The credentials given, the first of an API key, a bearer token, a user (with its
    /// password, empty when none): what the flags of a cluster say.
    pub fn chosen(
        api_key: Option<&str>,
        bearer: Option<&str>,
        user: Option<&str>,
        password: Option<&str>,
    ) -> Auth {
        if let Some(key) = api_key {
            Auth::ApiKey(Secret::new(key))
        } else if let Some(token) = bearer {
            Auth::Bearer(Secret::new(token))
        } else if let Some(user) = user {
            Auth::Basic {
                user: user.to_string(),
                password: Secret::new(password.unwrap_or_default()),
            }
        } else {
            Auth::None
        }
    }

    /// The `Authorization` header value, if any.
    pub(crate) fn header_value(&self) -> Option<String> {
        match self {
            Auth::None => None,
            Auth::Basic { user, password } => {
                let raw = format!("{user}:{}", password.expose());
                Some(format!(
                    "Basic {}",
                    base64::engine::general_purpose::STANDARD.encode(raw)
                ))
            }
            Auth::ApiKey(key) => Some(format!("ApiKey {}", key.expose())),
            Auth::Bearer(token) => Some(format!("Bearer {}", token.expose())),
        }
    }

    /// A description safe to print or store.
    pub fn describe(&self) -> String {
        match self {
            Auth::None => "none".into(),
            Auth::Basic { user, .. } => format!("basic ({user})"),
            Auth::ApiKey(_) => "api key".into(),
            Auth::Bearer(_) => "bearer token".into(),
        }
    }
}
