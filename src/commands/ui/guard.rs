//! Who may ask `destbench ui` anything: a request that carries the token printed with the
//! address (a page from another site cannot know it), names this server in its `Host` header (a
//! rebound DNS name would not), and, when it changes anything, is a POST whose `Origin`, if
//! sent, is this server.

use crate::error::{Error, Result};

/// A fresh token: 128 random bits from the operating system, as hex.
pub fn new_token() -> Result<String> {
    let mut bytes = [0u8; 16];
    getrandom::fill(&mut bytes).map_err(|e| {
        Error::io(
            "reading random bytes for the token",
            std::io::Error::other(e.to_string()),
        )
    })?;
    Ok(bytes.iter().map(|b| format!("{b:02x}")).collect())
}

/// What a request shows of itself, for the checks.
pub struct Asked<'a> {
    pub host: Option<&'a str>,
    pub origin: Option<&'a str>,
    pub token: Option<&'a str>,
}

/// Why a request is refused (403 each).
#[derive(Debug, PartialEq, Eq)]
pub enum Refusal {
    Token,
    Host,
    Origin,
}

impl Refusal {
    pub fn message(&self) -> &'static str {
        match self {
            Refusal::Token => "forbidden: this address needs the token destbench ui printed",
            Refusal::Host => "forbidden: the Host header does not name this server",
            Refusal::Origin => "forbidden: a request from another page",
        }
    }
}

pub fn check(asked: &Asked, token: &str, port: u16) -> std::result::Result<(), Refusal> {
    let ours = |value: &str| {
        let value = value.to_ascii_lowercase();
        value == format!("127.0.0.1:{port}") || value == format!("localhost:{port}")
    };
    if !asked.host.is_some_and(ours) {
        return Err(Refusal::Host);
    }
    if let Some(origin) = asked.origin {
        let host = origin.strip_prefix("http://").unwrap_or("");
        if !ours(host) {
            return Err(Refusal::Origin);
        }
    }
    match asked.token {
        Some(given) if same(given.as_bytes(), token.as_bytes()) => Ok(()),
        _ => Err(Refusal::Token),
    }
}

/// Compared in a time that does not depend on where they differ.
fn same(a: &[u8], b: &[u8]) -> bool {
    a.len() == b.len() && a.iter().zip(b).fold(0u8, |acc, (x, y)| acc | (x ^ y)) == 0
}

#[cfg(test)]
mod tests {
    use super::*;

    const TOKEN: &str = "00112233445566778899aabbccddeeff";

    fn asked<'a>(
        host: Option<&'a str>,
        origin: Option<&'a str>,
        token: Option<&'a str>,
    ) -> Asked<'a> {
        Asked {
            host,
            origin,
            token,
        }
    }

    #[test]
    fn the_token_and_this_host_are_needed() {
        let ok = |a: Asked| check(&a, TOKEN, 8123);
        assert_eq!(ok(asked(Some("127.0.0.1:8123"), None, Some(TOKEN))), Ok(()));
        assert_eq!(ok(asked(Some("LOCALHOST:8123"), None, Some(TOKEN))), Ok(()));
        assert_eq!(
            ok(asked(Some("127.0.0.1:8123"), None, None)),
            Err(Refusal::Token)
        );
        let wrong = "00112233445566778899aabbccddeefe";
        assert_eq!(
            ok(asked(Some("127.0.0.1:8123"), None, Some(wrong))),
            Err(Refusal::Token)
        );
        assert_eq!(
            ok(asked(Some("127.0.0.1:8123"), None, Some("0011"))),
            Err(Refusal::Token)
        );
        assert_eq!(
            ok(asked(Some("evil.example:8123"), None, Some(TOKEN))),
            Err(Refusal::Host)
        );
        assert_eq!(
            ok(asked(Some("127.0.0.1:80"), None, Some(TOKEN))),
            Err(Refusal::Host)
        );
        assert_eq!(ok(asked(None, None, Some(TOKEN))), Err(Refusal::Host));
        let foreign = Some("http://evil.example");
        assert_eq!(
            ok(asked(Some("127.0.0.1:8123"), foreign, Some(TOKEN))),
            Err(Refusal::Origin)
        );
        let own = Some("http://127.0.0.1:8123");
        assert_eq!(ok(asked(Some("127.0.0.1:8123"), own, Some(TOKEN))), Ok(()));
    }

    #[test]
    fn tokens_are_fresh() {
        let (a, b) = (new_token().unwrap(), new_token().unwrap());
        assert_eq!(a.len(), 32);
        assert_ne!(a, b);
    }
}
