//! The filter rules a sweep can vary, one [`Rule`] each, and what a rule
//! at a threshold does to a document selection.
//!
//! | rule | key | a value `x` keeps | name in tags |
//! |---|---|---|---|
//! | [`Rule::MinSpamPercentile`] | `spam` | scored documents with spam percentile `>= x` (integer 0–100); unscored ones by the sweep's unscored policy | `spam{x}` |
//! | [`Rule::MaxRatePerKb`]`(class)` | the class key (`invalid_4_5_6`, ...) | documents with at most `x` errors of the class per KB (`count · 1024 / bytes <= x`, `x >= 0`) | `i456le{x}` for `invalid_4_5_6` (as `run` names it), else `{key}_le{x}` |
//!
//! These are exactly the rules of [`sieve_filters::docfilter::Thresholds`],
//! so a setting of a sweep keeps the same documents as `sieve-search run`
//! or `sieve-filter build` with the same thresholds.
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
}

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
            .collect()
    }

    /// The rule's key: its column name in `sweep.tsv`.
    pub fn key(self) -> &'static str {
        match self {
            Rule::MinSpamPercentile => "spam",
            Rule::MaxRatePerKb(c) => c.key(),
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
        };
        if ok {
            Ok(())
        } else {
            Err(Error::InvalidParameter {
                name: "threshold",
                expected: match self {
                    Rule::MinSpamPercentile => "a spam percentile, an integer 0-100",
                    Rule::MaxRatePerKb(_) => "a finite rate per KB >= 0",
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
        }
    }

    /// The rule at `x` in run tags and file names (`spam70`, `i456le0.5`).
    pub fn label(self, x: f64) -> String {
        match self {
            Rule::MinSpamPercentile => format!("spam{}", x as u8),
            Rule::MaxRatePerKb(ErrorClass::Invalid456) => format!("i456le{}", num_label(x)),
            Rule::MaxRatePerKb(c) => format!("{}_le{}", c.key(), num_label(x)),
        }
    }

    /// The rule at `x` in words, for tables and pages (`spam >= 70`).
    pub fn describe(self, x: f64) -> String {
        match self {
            Rule::MinSpamPercentile => format!("spam >= {}", x as u8),
            Rule::MaxRatePerKb(c) => format!("{} <= {x}/KB", c.key()),
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
        }
    }

    /// How the rule's values are laid out on an axis.
    pub fn scale(self) -> Scale {
        match self {
            Rule::MinSpamPercentile => Scale::Linear,
            Rule::MaxRatePerKb(_) => Scale::Ordinal,
        }
    }

    /// The value in `sweep.tsv` (shortest round-trip form).
    pub fn value_text(self, x: f64) -> String {
        match self {
            Rule::MinSpamPercentile => format!("{}", x as u8),
            Rule::MaxRatePerKb(_) => format!("{x}"),
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
        let rule = Rule::from_key(key.trim())
            .ok_or_else(|| bad("a rule key: spam or an error class key such as invalid_4_5_6"))?;
        let values = list
            .split(',')
            .map(|v| {
                v.trim()
                    .parse::<f64>()
                    .map_err(|_| bad("numbers after RULE="))
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
        assert_eq!(Rule::all().len(), 8);
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
