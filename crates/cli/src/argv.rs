//! Command-line words rewritten before parsing, so that the field's habits
//! do what they say and never fall into another option.
//!
//! Argument parsers read `-hits 10` as the one-letter cluster `-h -i -t -s`:
//! with `-h` first it prints help and exits successfully having done
//! nothing. [`normalize`] runs before the parser: a word with one dash and
//! two or more letters is rewritten when a table (such as Anserini's
//! spellings in `sieve_searcher::argv`) names it, passes when every letter is
//! one of the command's one-letter options (`-cq`), and is refused with
//! [`Error::SingleDashLong`] otherwise. Words after `--`, and words such as
//! `-0.5` (a digit after the dash), are never touched.

use std::ffi::OsString;

use crate::error::Error;

/// One rewrite: a single-dash spelling and the words that replace it (an
/// empty list drops the word, for a switch that asks for the only behaviour
/// there is).
pub type Spelling = (&'static str, &'static [&'static str]);

/// Rewrites `args` (the program name first, as from [`std::env::args_os`])
/// by `table`; `shorts` are the command's one-letter options, which may be
/// clustered. Errors on the first single-dash word of two or more letters
/// that is in neither.
pub fn normalize(
    args: impl IntoIterator<Item = OsString>,
    table: &[Spelling],
    shorts: &str,
) -> Result<Vec<OsString>, Error> {
    let mut out = Vec::new();
    let mut rest = false;
    for (i, arg) in args.into_iter().enumerate() {
        let Some(word) = arg.to_str().filter(|_| i > 0 && !rest) else {
            out.push(arg);
            continue;
        };
        if word == "--" {
            rest = true;
            out.push(arg);
            continue;
        }
        let flag = word.split_once('=').map_or(word, |(f, _)| f);
        let letters = flag.strip_prefix('-').filter(|l| !l.starts_with('-'));
        let Some(letters) = letters.filter(|l| l.chars().count() >= 2) else {
            out.push(arg);
            continue;
        };
        if !letters.starts_with(|c: char| c.is_ascii_alphabetic()) {
            out.push(arg);
        } else if let Some((_, with)) = table.iter().find(|(from, _)| *from == flag) {
            let value = word.split_once('=').map(|(_, v)| v);
            match (with.split_last(), value) {
                (Some((last, init)), Some(v)) => {
                    out.extend(init.iter().map(OsString::from));
                    out.push(format!("{last}={v}").into());
                }
                _ => out.extend(with.iter().map(OsString::from)),
            }
        } else if word == flag && letters.chars().all(|c| shorts.contains(c)) {
            out.push(arg);
        } else {
            return Err(Error::SingleDashLong {
                arg: word.to_owned(),
            });
        }
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    const TABLE: &[Spelling] = &[("-hits", &["--hits"]), ("-bm25", &[])];

    fn norm(words: &[&str]) -> Result<Vec<String>, Error> {
        let args = words.iter().map(OsString::from);
        normalize(args, TABLE, "cq")
            .map(|v| v.into_iter().map(|a| a.into_string().unwrap()).collect())
    }

    #[test]
    fn single_dash_hits_is_rewritten_not_read_as_help() {
        let got = norm(&["prog", "run", "-hits", "10", "-bm25", "-hits=5"]).unwrap();
        assert_eq!(got, ["prog", "run", "--hits", "10", "--hits=5"]);
    }

    #[test]
    fn unknown_single_dash_long_is_refused_naming_two_dashes() {
        let err = norm(&["prog", "run", "-help-me"]).unwrap_err();
        assert!(err.to_string().contains("`--help-me`"), "{err}");
        assert!(norm(&["prog", "-hq"]).is_err());
    }

    #[test]
    fn short_clusters_numbers_and_words_after_double_dash_pass() {
        let words = ["prog", "-cq", "-c", "-0.5", "--hits", "--", "-hits"];
        assert_eq!(norm(&words).unwrap(), words);
    }
}
