//! The filter rules a sweep can vary, one [`Rule`] each, and what a rule
//! at a threshold does to a document selection.
//!
//! | rule | key | a value `x` keeps | name in tags |
//! |---|---|---|---|
//! | [`Rule::MinSpamPercentile`] | `spam` | scored documents with spam percentile `>= x` (integer 0–100); unscored ones by the sweep's unscored policy | `spam{x}` |
//! | [`Rule::MaxRatePerKb`]`(class)` | the class key (`invalid_4_5_6`, ...) | documents with at most `x` errors of the class per KB (`count · 1024 / bytes <= x`, `x >= 0`) | `i456le{x}` for `invalid_4_5_6` (as `run` names it), else `{key}_le{x}` |
//! | [`Rule::NearDuplicates`] | `near_duplicates` | `keep` ([`KEEP`], 0): every document; `drop` ([`DROP`], 1): every document but the near-duplicates (members of a near-duplicate cluster other than its representative, [`sieve_format::dups`]) | `keepdup`, `nodup` (as `run --drop-near-duplicates` names it) |
//!
//! These are exactly the rules of [`sieve_filters::docfilter::Thresholds`],
//! so a setting of a sweep keeps the same documents as `sieve-search run`
//! or `sieve-filter build` with the same thresholds. Values are numbers
//! (`f64`); the near-duplicate rule's two values are written `keep` and
//! `drop` everywhere a user reads or gives them ([`Rule::value_text`],
//! [`Rule::parse_value`]), its numbers are internal.
//!
//! **Adding a rule** (a new filter, e.g. near-duplicate clusters): add a
//! variant to [`Rule`], then the compiler lists every `match` to extend:
//! its key and parsing ([`Rule::key`], [`Rule::from_key`]), the values it
//! accepts ([`Rule::check`]), what it does to a [`DocSelection`]
//! ([`Rule::apply`]), its names ([`Rule::label`], [`Rule::axis_label`],
//! [`Rule::describe`]) and how its axis is drawn ([`Rule::scale`]). Nothing
//! else in the sweep, its table, figure or page knows the rules.

use sieve_filters::docfilter::Unscored;
use sieve_filters::utf8::ErrorClass;

use crate::batch::{DocSelection, num_label};
use crate::{Error, Result};

/// A filter rule with one threshold (see the module docs).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Rule {
    /// Keep scored documents with spam percentile `>=` the value.
    MinSpamPercentile,
    /// Drop documents with more than the value of this class's errors per
    /// KB.
    MaxRatePerKb(ErrorClass),
    /// [`KEEP`] near-duplicates, or [`DROP`] them (every member of a
    /// near-duplicate cluster but its representative).
    NearDuplicates,
}

/// The near-duplicate rule's value that keeps every document.
pub const KEEP: f64 = 0.0;
/// The near-duplicate rule's value that drops near-duplicates.
pub const DROP: f64 = 1.0;

/// How a rule's values are laid out on a figure's x axis.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Scale {
    /// In proportion to the values (spam percentiles).
    Linear,
    /// Evenly spaced in value order, labelled with the values (rates,
    /// which are usually spread over orders of magnitude and include 0).
    Ordinal,
}

impl Rule {
    /// Every rule, in the order of the module docs' table.
    pub fn all() -> Vec<Rule> {
        std::iter::once(Rule::MinSpamPercentile)
            .chain(ErrorClass::ALL.into_iter().map(Rule::MaxRatePerKb))
            .chain(std::iter::once(Rule::NearDuplicates))
            .collect()
    }

    /// The rule's key: its column name in `sweep.tsv`.
    pub fn key(self) -> &'static str {
        match self {
            Rule::MinSpamPercentile => "spam",
            Rule::MaxRatePerKb(c) => c.key(),
            Rule::NearDuplicates => "near_duplicates",
        }
    }

    /// The rule named `key` ([`Rule::key`]).
    pub fn from_key(key: &str) -> Option<Rule> {
        Rule::all().into_iter().find(|r| r.key() == key)
    }

    /// Checks `x` is a value of the rule.
    pub fn check(self, x: f64) -> Result<()> {
        let ok = match self {
            Rule::MinSpamPercentile => (0.0..=100.0).contains(&x) && x.fract() == 0.0,
            Rule::MaxRatePerKb(_) => x.is_finite() && x >= 0.0,
            Rule::NearDuplicates => x == KEEP || x == DROP,
        };
        if ok {
            Ok(())
        } else {
            Err(Error::InvalidParameter {
                name: "threshold",
                expected: match self {
                    Rule::MinSpamPercentile => "a spam percentile, an integer 0-100",
                    Rule::MaxRatePerKb(_) => "a finite rate per KB >= 0",
                    Rule::NearDuplicates => "keep or drop",
                },
                got: format!("{} {x}", self.key()),
            })
        }
    }

    /// Adds the rule at value `x` to `sel` (its thresholds; `unscored` is
    /// the policy for documents without a spam score).
    pub fn apply(self, x: f64, unscored: Unscored, sel: &mut DocSelection) {
        match self {
            Rule::MinSpamPercentile => {
                sel.thresholds.min_spam_percentile = Some(x as u8);
                sel.thresholds.unscored = unscored;
            }
            Rule::MaxRatePerKb(c) => {
                sel.thresholds
                    .max_rate_per_kb
                    .insert(c.key().to_string(), x);
            }
            Rule::NearDuplicates => sel.thresholds.drop_near_duplicates = x == DROP,
        }
    }

    /// The rule at `x` in run tags and file names (`spam70`, `i456le0.5`).
    pub fn label(self, x: f64) -> String {
        match self {
            Rule::MinSpamPercentile => format!("spam{}", x as u8),
            Rule::MaxRatePerKb(ErrorClass::Invalid456) => format!("i456le{}", num_label(x)),
            Rule::MaxRatePerKb(c) => format!("{}_le{}", c.key(), num_label(x)),
            Rule::NearDuplicates if x == DROP => "nodup".into(),
            Rule::NearDuplicates => "keepdup".into(),
        }
    }

    /// The rule at `x` in words, for tables and pages (`spam >= 70`).
    pub fn describe(self, x: f64) -> String {
        match self {
            Rule::MinSpamPercentile => format!("spam >= {}", x as u8),
            Rule::MaxRatePerKb(c) => format!("{} <= {x}/KB", c.key()),
            Rule::NearDuplicates if x == DROP => "near-duplicates dropped".into(),
            Rule::NearDuplicates => "near-duplicates kept".into(),
        }
    }

    /// The x-axis label of a figure over this rule's values.
    pub fn axis_label(self) -> String {
        match self {
            Rule::MinSpamPercentile => {
                "minimum spam percentile kept (0 = spammiest; higher removes more)".into()
            }
            Rule::MaxRatePerKb(c) => format!(
                "maximum {} per KB kept (lower removes more)",
                c.label().to_lowercase()
            ),
            Rule::NearDuplicates => {
                "near-duplicates (drop keeps each cluster's representative only)".into()
            }
        }
    }

    /// How the rule's values are laid out on an axis.
    pub fn scale(self) -> Scale {
        match self {
            Rule::MinSpamPercentile => Scale::Linear,
            Rule::MaxRatePerKb(_) | Rule::NearDuplicates => Scale::Ordinal,
        }
    }

    /// The value in `sweep.tsv` (shortest round-trip form).
    pub fn value_text(self, x: f64) -> String {
        match self {
            Rule::MinSpamPercentile => format!("{}", x as u8),
            Rule::MaxRatePerKb(_) => format!("{x}"),
            Rule::NearDuplicates if x == DROP => "drop".into(),
            Rule::NearDuplicates => "keep".into(),
        }
    }

    /// A value as a user writes it: a number, or for the near-duplicate
    /// rule `keep` or `drop` (the inverse of [`Rule::value_text`]); not
    /// checked ([`Rule::check`]).
    pub fn parse_value(self, text: &str) -> Option<f64> {
        match self {
            Rule::NearDuplicates => match text {
                "keep" => Some(KEEP),
                "drop" => Some(DROP),
                _ => None,
            },
            _ => text.parse().ok(),
        }
    }
}

/// A rule and the thresholds to sweep it over.
#[derive(Debug, Clone, PartialEq)]
pub struct Axis {
    /// The rule.
    pub rule: Rule,
    /// Its values, in the order given (duplicates are refused).
    pub values: Vec<f64>,
}

impl Axis {
    /// An axis over `values` of `rule`, each checked ([`Rule::check`]);
    /// an empty list or a repeated value is refused.
    pub fn new(rule: Rule, values: Vec<f64>) -> Result<Axis> {
        if values.is_empty() {
            return Err(Error::InvalidParameter {
                name: "threshold",
                expected: "at least one value",
                got: format!("no value for {}", rule.key()),
            });
        }
        for (i, &x) in values.iter().enumerate() {
            rule.check(x)?;
            if values[..i].contains(&x) {
                return Err(Error::InvalidParameter {
                    name: "threshold",
                    expected: "each value once",
                    got: format!("{} {x} twice", rule.key()),
                });
            }
        }
        Ok(Axis { rule, values })
    }

    /// Parses `KEY=X,Y,...` (a rule key from the module docs, then a comma
    /// list of values).
    pub fn parse(spec: &str) -> Result<Axis> {
        let bad = |expected: &'static str| Error::InvalidParameter {
            name: "threshold",
            expected,
            got: spec.to_string(),
        };
        let (key, list) = spec.split_once('=').ok_or_else(|| bad("RULE=X,Y,..."))?;
        let rule = Rule::from_key(key.trim()).ok_or_else(|| {
            bad("a rule key: spam, near_duplicates or an error class key such as invalid_4_5_6")
        })?;
        let values = list
            .split(',')
            .map(|v| {
                rule.parse_value(v.trim()).ok_or_else(|| {
                    bad(match rule {
                        Rule::NearDuplicates => "keep or drop after near_duplicates=",
                        _ => "numbers after RULE=",
                    })
                })
            })
            .collect::<Result<Vec<f64>>>()?;
        Axis::new(rule, values)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keys_round_trip_and_names_match_run() {
        for r in Rule::all() {
            assert_eq!(Rule::from_key(r.key()), Some(r));
        }
        assert_eq!(Rule::all().len(), 9);
        assert_eq!(Rule::MinSpamPercentile.label(70.0), "spam70");
        let i456 = Rule::MaxRatePerKb(ErrorClass::Invalid456);
        assert_eq!(i456.label(0.5), "i456le0.5");
        // the names `sieve-search run` gives the same selections
        assert_eq!(
            i456.label(0.5),
            crate::runspec::invalid_456_selection(0.5).unwrap().name
        );
        assert_eq!(
            Rule::MinSpamPercentile.label(70.0),
            crate::runspec::spam_selection(70, Unscored::Keep).name
        );
        assert_eq!(
            Rule::MaxRatePerKb(ErrorClass::Surrogate).label(0.25),
            "surrogate_le0.25"
        );
    }

    #[test]
    fn near_duplicates_is_keep_or_drop_named_as_run_names_it() {
        let nd = Rule::NearDuplicates;
        assert_eq!(Rule::from_key("near_duplicates"), Some(nd));
        assert_eq!(
            (nd.label(DROP), nd.label(KEEP)),
            ("nodup".into(), "keepdup".into())
        );
        assert_eq!(
            nd.label(DROP),
            crate::runspec::drop_near_duplicates(None).name
        );
        assert_eq!(
            (nd.value_text(KEEP), nd.value_text(DROP)),
            ("keep".into(), "drop".into())
        );
        assert_eq!(nd.describe(DROP), "near-duplicates dropped");
        assert_eq!(nd.scale(), Scale::Ordinal);
        assert!(nd.check(KEEP).is_ok() && nd.check(DROP).is_ok());
        for bad in [0.5, 2.0, -1.0, f64::NAN] {
            assert!(nd.check(bad).is_err(), "{bad}");
        }
        let a = Axis::parse("near_duplicates=keep, drop").unwrap();
        assert_eq!((a.rule, a.values), (nd, vec![KEEP, DROP]));
        for bad in [
            "near_duplicates=1",
            "near_duplicates=yes",
            "near_duplicates=drop,drop",
        ] {
            assert!(Axis::parse(bad).is_err(), "{bad}");
        }
        let mut sel = DocSelection::default();
        nd.apply(KEEP, Unscored::Keep, &mut sel);
        assert!(!sel.thresholds.drop_near_duplicates && sel.is_all());
        nd.apply(DROP, Unscored::Keep, &mut sel);
        assert!(sel.thresholds.drop_near_duplicates);
    }

    #[test]
    fn values_are_checked() {
        let spam = Rule::MinSpamPercentile;
        assert!(spam.check(0.0).is_ok() && spam.check(100.0).is_ok());
        for bad in [-1.0, 101.0, 50.5, f64::NAN] {
            assert!(spam.check(bad).is_err(), "{bad}");
        }
        let rate = Rule::MaxRatePerKb(ErrorClass::Surrogate);
        assert!(rate.check(0.0).is_ok() && rate.check(1e9).is_ok());
        for bad in [-0.1, f64::INFINITY, f64::NAN] {
            assert!(rate.check(bad).is_err(), "{bad}");
        }
        assert!(Axis::new(spam, vec![]).is_err());
        assert!(Axis::new(spam, vec![50.0, 50.0]).is_err());
    }

    #[test]
    fn parse_key_and_list() {
        let a = Axis::parse("surrogate=0,0.5, 2").unwrap();
        assert_eq!(a.rule, Rule::MaxRatePerKb(ErrorClass::Surrogate));
        assert_eq!(a.values, [0.0, 0.5, 2.0]);
        assert_eq!(Axis::parse("spam=50,70").unwrap().values, [50.0, 70.0]);
        for bad in ["surrogate", "nope=1", "spam=", "spam=a", "spam=150"] {
            assert!(Axis::parse(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn apply_builds_the_thresholds_of_run() {
        let mut sel = DocSelection::default();
        Rule::MinSpamPercentile.apply(70.0, Unscored::Drop, &mut sel);
        Rule::MaxRatePerKb(ErrorClass::Invalid456).apply(0.5, Unscored::Drop, &mut sel);
        assert_eq!(sel.thresholds.min_spam_percentile, Some(70));
        assert_eq!(sel.thresholds.unscored, Unscored::Drop);
        assert_eq!(sel.thresholds.max_rate_per_kb["invalid_4_5_6"], 0.5);
        assert!(sel.thresholds.validate().is_ok());
    }
}
