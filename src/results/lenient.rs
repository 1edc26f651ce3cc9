//! Reading run documents leniently: a stored document may come from an older or a newer
//! destbench. Unknown fields are ignored by serde already; these helpers go one step further
//! for the parts a newer version may extend with values this one does not know (a new test id,
//! a new kind of details, a chain node of a new kind): such a part is left out (a list item) or
//! read as absent (an optional value), and the rest of the document still loads. The verbatim
//! document stays in the history store, so an export loses nothing.

use serde::de::{Deserialize, Deserializer, IgnoredAny};

/// A value that parsed, or anything else (ignored).
#[derive(serde::Deserialize)]
#[serde(untagged)]
enum Maybe<T> {
    Parsed(T),
    Other(#[allow(dead_code)] IgnoredAny),
}

impl<T> Maybe<T> {
    fn ok(self) -> Option<T> {
        match self {
            Maybe::Parsed(value) => Some(value),
            Maybe::Other(_) => None,
        }
    }
}

/// A list whose items that do not parse are left out (`null` reads as empty).
pub fn list<'de, D, T>(deserializer: D) -> Result<Vec<T>, D::Error>
where
    D: Deserializer<'de>,
    T: Deserialize<'de>,
{
    let items: Option<Vec<Maybe<T>>> = Deserialize::deserialize(deserializer)?;
    Ok(items
        .unwrap_or_default()
        .into_iter()
        .filter_map(Maybe::ok)
        .collect())
}

/// An optional value that reads as None when it does not parse.
pub fn option<'de, D, T>(deserializer: D) -> Result<Option<T>, D::Error>
where
    D: Deserializer<'de>,
    T: Deserialize<'de>,
{
    let value: Option<Maybe<T>> = Deserialize::deserialize(deserializer)?;
    Ok(value.and_then(Maybe::ok))
}

#[cfg(test)]
mod tests {
    #[derive(serde::Deserialize, Debug, PartialEq)]
    struct Doc {
        #[serde(default, deserialize_with = "super::list")]
        numbers: Vec<u8>,
        #[serde(default, deserialize_with = "super::option")]
        maybe: Option<u8>,
    }

    #[test]
    fn items_that_do_not_parse_are_left_out() {
        let doc: Doc =
            serde_json::from_str(r#"{ "numbers": [1, "two", 3, 300], "maybe": "x" }"#).unwrap();
        assert_eq!(
            doc,
            Doc {
                numbers: vec![1, 3],
                maybe: None
            }
        );
        let doc: Doc = serde_json::from_str(r#"{ "numbers": null }"#).unwrap();
        assert!(doc.numbers.is_empty() && doc.maybe.is_none());
    }
}
