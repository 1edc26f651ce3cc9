//! What `destbench ui` sends back: a status, a type, a body, and the policy of a page.

/// What is sent back.
pub struct Reply {
    pub status: u16,
    pub content_type: &'static str,
    pub body: String,
    pub csp: Option<String>,
}

impl Reply {
    pub fn json(status: u16, body: String) -> Reply {
        Reply {
            status,
            content_type: "application/json",
            body,
            csp: None,
        }
    }

    pub fn text(status: u16, body: impl Into<String>) -> Reply {
        Reply {
            status,
            content_type: "text/plain; charset=utf-8",
            body: body.into(),
            csp: None,
        }
    }

    pub fn html(body: String, csp: String) -> Reply {
        Reply {
            status: 200,
            content_type: "text/html; charset=utf-8",
            body,
            csp: Some(csp),
        }
    }
}

pub fn to_json<T: serde::Serialize>(value: &T) -> String {
    serde_json::to_string(value).unwrap_or_else(|e| format!("{{\"error\":\"{e}\"}}"))
}
