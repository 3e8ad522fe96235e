//! Query-string parameters, read exactly: `name=value` pairs split on
//! `&`, `+` read as a space, percent escapes decoded, and the decoded bytes
//! required to be UTF-8 (a bad sequence is refused, naming the parameter,
//! not replaced). A parameter given twice, or one the route does not take,
//! is refused: a misspelt `min_spam_percentil=70` must not search
//! unfiltered. Values are then read by type with their bounds
//! ([`Params::number`], [`Params::flag`], ...), each refusal naming the
//! parameter and what it expected.

use std::collections::BTreeMap;
use std::str::FromStr;

use crate::error::ApiError;

/// The parameters of one request, by name.
#[derive(Debug, Default)]
pub struct Params {
    values: BTreeMap<String, String>,
}

impl Params {
    /// Reads `query` (the part of the URI after `?`, if any), accepting
    /// only the names in `allowed`.
    pub fn parse(query: Option<&str>, allowed: &[&str]) -> Result<Params, ApiError> {
        let mut values = BTreeMap::new();
        for pair in query.unwrap_or("").split('&').filter(|p| !p.is_empty()) {
            let (name, value) = pair.split_once('=').unwrap_or((pair, ""));
            let name = decode(name, "a parameter name")?;
            let value = decode(value, &name)?;
            if !allowed.contains(&name.as_str()) {
                return Err(ApiError::bad_parameter(
                    &name,
                    format!(
                        "unknown parameter {name:?}; this route takes {}",
                        allowed.join(", ")
                    ),
                ));
            }
            if values.insert(name.clone(), value).is_some() {
                return Err(ApiError::bad_parameter(
                    &name,
                    format!("{name} given twice"),
                ));
            }
        }
        Ok(Params { values })
    }

    /// The text of `name`, if given.
    pub fn text(&self, name: &str) -> Option<&str> {
        self.values.get(name).map(String::as_str)
    }

    /// `name` read as a `T` within `[min, max]` (`default` when absent).
    pub fn number<T>(&self, name: &str, default: T, min: T, max: T) -> Result<T, ApiError>
    where
        T: FromStr + PartialOrd + Copy + std::fmt::Display,
    {
        match self.optional(name, min, max)? {
            Some(v) => Ok(v),
            None => Ok(default),
        }
    }

    /// `name` read as a `T` within `[min, max]`, or `None` when absent.
    pub fn optional<T>(&self, name: &str, min: T, max: T) -> Result<Option<T>, ApiError>
    where
        T: FromStr + PartialOrd + Copy + std::fmt::Display,
    {
        let Some(text) = self.text(name) else {
            return Ok(None);
        };
        match text.trim().parse::<T>() {
            Ok(v) if v >= min && v <= max => Ok(Some(v)),
            _ => Err(ApiError::bad_parameter(
                name,
                format!("{name} must be a number from {min} to {max}, got {text:?}"),
            )),
        }
    }

    /// `name` read as `true`/`false` (also `1`/`0`; `default` when absent).
    pub fn flag(&self, name: &str, default: bool) -> Result<bool, ApiError> {
        match self.text(name) {
            None => Ok(default),
            Some("true" | "1") => Ok(true),
            Some("false" | "0") => Ok(false),
            Some(other) => Err(ApiError::bad_parameter(
                name,
                format!("{name} must be true or false, got {other:?}"),
            )),
        }
    }

    /// `name` read as one of `choices` (`choices[0]` when absent).
    pub fn choice<'c>(&self, name: &str, choices: &[&'c str]) -> Result<&'c str, ApiError> {
        let Some(text) = self.text(name) else {
            return Ok(choices[0]);
        };
        choices
            .iter()
            .find(|c| **c == text)
            .copied()
            .ok_or_else(|| {
                ApiError::bad_parameter(
                    name,
                    format!("{name} must be one of {}, got {text:?}", choices.join(", ")),
                )
            })
    }
}

/// `raw` with `+` as a space and percent escapes decoded, as UTF-8.
fn decode(raw: &str, what: &str) -> Result<String, ApiError> {
    let spaced = raw.replace('+', " ");
    let bytes: Vec<u8> = percent_encoding::percent_decode_str(&spaced).collect();
    String::from_utf8(bytes).map_err(|e| {
        ApiError::bad_parameter(
            what,
            format!(
                "{what} is not UTF-8 after percent-decoding (invalid byte at {})",
                e.utf8_error().valid_up_to()
            ),
        )
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pairs_are_decoded_exactly() {
        let p = Params::parse(
            Some("query=a+b%20c%C3%A9&hits=5&x="),
            &["query", "hits", "x"],
        );
        let p = p.unwrap();
        assert_eq!(p.text("query"), Some("a b cé"));
        assert_eq!(p.number("hits", 10usize, 1, 100).unwrap(), 5);
        assert_eq!(p.text("x"), Some(""));
    }

    #[test]
    fn bad_utf8_unknown_and_repeated_parameters_are_refused() {
        for (q, param) in [
            ("query=%FF%FE", "query"),
            ("qeury=a", "qeury"),
            ("query=a&query=b", "query"),
        ] {
            let e = Params::parse(Some(q), &["query"]).unwrap_err();
            assert_eq!(e.status, 400, "{q}");
            assert_eq!(e.parameter.as_deref(), Some(param), "{q}");
        }
    }

    #[test]
    fn numbers_outside_their_bounds_are_refused() {
        let p = Params::parse(Some("hits=-1&k1=nan&b=2"), &["hits", "k1", "b"]).unwrap();
        assert!(p.number("hits", 10usize, 1, 10_000).is_err());
        assert!(p.number("k1", 0.9f32, 0.0, 100.0).is_err());
        assert!(p.number("b", 0.4f32, 0.0, 1.0).is_err());
    }
}
