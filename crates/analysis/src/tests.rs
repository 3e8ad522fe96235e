//! Tests of the analyser: oracles (Porter's vocabulary, Lucene's behaviour on
//! hand cases), properties, and tantivy parity.

use proptest::prelude::*;
use tantivy::tokenizer::{MAX_TOKEN_LEN, TokenStream};

use super::*;
use crate::porter;

fn default_terms(text: &str) -> Vec<String> {
    EnglishAnalyzer::default().terms(text)
}

fn plain() -> EnglishAnalyzer {
    EnglishAnalyzer::new(AnalyzerConfig {
        stemmer: Stemmer::None,
        stopwords: Stopwords::None,
    })
}

fn plain_terms(text: &str) -> Vec<String> {
    plain().terms(text)
}

/// Martin Porter's test vocabulary: every word of `voc.txt` must stem to the
/// line of `output.txt`, as Lucene's PorterStemmer does.
#[test]
fn porter_vocabulary() {
    let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/../../tests/data/analysis");
    let voc = std::fs::read_to_string(format!("{dir}/porter_voc.txt")).expect("porter_voc.txt");
    let out =
        std::fs::read_to_string(format!("{dir}/porter_output.txt")).expect("porter_output.txt");
    let voc: Vec<&str> = voc.lines().collect();
    let out: Vec<&str> = out.lines().collect();
    assert_eq!(voc.len(), 23_531);
    assert_eq!(voc.len(), out.len());
    let wrong: Vec<_> = voc
        .iter()
        .zip(&out)
        .filter(|(w, want)| porter::stem(w) != **want)
        .map(|(w, want)| format!("{w} -> {} (want {want})", porter::stem(w)))
        .collect();
    assert!(
        wrong.is_empty(),
        "{} wrong, e.g. {:?}",
        wrong.len(),
        &wrong[..wrong.len().min(20)]
    );
    // Through the analyser too (no stop words, no possessives in the list
    // except ones that the possessive filter does not touch).
    let analyzer = EnglishAnalyzer::new(AnalyzerConfig {
        stemmer: Stemmer::Porter,
        stopwords: Stopwords::None,
    });
    for (w, want) in voc.iter().zip(&out) {
        assert_eq!(analyzer.terms(w), [*want], "{w}");
    }
}

#[test]
fn lucene_tokenizer_cases() {
    assert_eq!(plain_terms("U.S.A."), ["u.s.a"]);
    assert_eq!(
        plain_terms("pi is 3.14, or 3,141.59"),
        ["pi", "is", "3.14", "or", "3,141.59"]
    );
    assert_eq!(plain_terms("e-mail"), ["e", "mail"]);
    assert_eq!(plain_terms("don't"), ["don't"]);
    assert_eq!(plain_terms("O'Neil"), ["o'neil"]);
    assert_eq!(plain_terms("AT&T"), ["at", "t"]);
    assert_eq!(plain_terms("http://x.com/a"), ["http", "x.com", "a"]);
    assert_eq!(
        plain_terms("snake_case __init__ ___"),
        ["snake_case", "__init__"]
    );
    assert_eq!(plain_terms("wi-fi 802.11b"), ["wi", "fi", "802.11b"]);
    assert_eq!(plain_terms("  \n\t "), Vec::<String>::new());
    assert_eq!(plain_terms("--- ... !!!"), Vec::<String>::new());
    assert_eq!(plain_terms("end."), ["end"]);
}

#[test]
fn possessives() {
    assert_eq!(plain_terms("John's"), ["john"]);
    assert_eq!(plain_terms("JOHN'S"), ["john"]);
    assert_eq!(plain_terms("John’s"), ["john"]);
    assert_eq!(plain_terms("John＇s"), ["john"]);
    assert_eq!(plain_terms("Johns'"), ["johns"]);
    assert_eq!(plain_terms("it's"), ["it"]);
    // Stop words are checked after the possessive is removed.
    assert_eq!(default_terms("it's"), Vec::<String>::new());
    assert_eq!(plain_terms("o's"), ["o"]);
}

#[test]
fn stopwords_removed_with_position_gaps() {
    assert_eq!(default_terms("The cat and THE hat"), ["cat", "hat"]);
    let mut toks = Vec::new();
    let n = EnglishAnalyzer::default().analyze_into("the cat in the hat", &mut toks);
    assert_eq!(n, 2);
    assert_eq!(toks.iter().map(|t| t.position).collect::<Vec<_>>(), [1, 4]);
    let all = LUCENE_ENGLISH_STOPWORDS.join(" ");
    assert_eq!(default_terms(&all), Vec::<String>::new());
    assert_eq!(plain_terms(&all).len(), 33);
    let keep = EnglishAnalyzer::new(AnalyzerConfig {
        stemmer: Stemmer::Porter,
        stopwords: Stopwords::None,
    });
    assert_eq!(keep.terms("the cats"), ["the", "cat"]);
}

#[test]
fn lowercase_non_ascii() {
    assert_eq!(plain_terms("ÉCOLE"), ["école"]);
    assert_eq!(plain_terms("İSTANBUL"), ["istanbul"]);
    assert_eq!(plain_terms("ΣΟΦΙΑ"), ["σοφια"]);
    // Non-ASCII letters are consonants for Lucene's stemmer: no final-e removal.
    assert_eq!(default_terms("Écoles"), ["école"]);
}

#[test]
fn cjk_and_numbers() {
    assert_eq!(plain_terms("中文分词"), ["中", "文", "分", "词"]);
    assert_eq!(plain_terms("ひらがな"), ["ひ", "ら", "が", "な"]);
    assert_eq!(plain_terms("カタカナ"), ["カタカナ"]);
    assert_eq!(plain_terms("한국어 텍스트"), ["한국어", "텍스트"]);
    assert_eq!(default_terms("1984 and 2001"), ["1984", "2001"]);
    assert_eq!(default_terms("year 1990s"), ["year", "1990"]);
}

#[test]
fn stemming_through_pipeline() {
    assert_eq!(
        default_terms("The Running Dogs' owners were generalizing relational databases."),
        ["run", "dog", "owner", "were", "gener", "relat", "databas"]
    );
}

#[test]
fn analyze_into_appends_after_last_position() {
    let a = EnglishAnalyzer::default();
    let mut toks = Vec::new();
    assert_eq!(a.analyze_into("alpha beta", &mut toks), 2);
    assert_eq!(a.analyze_into("gamma", &mut toks), 1);
    assert_eq!(
        toks.iter().map(|t| t.position).collect::<Vec<_>>(),
        [0, 1, 2]
    );
    assert_eq!(toks[2].offset_from, 0);
    assert_eq!(toks[2].offset_to, 5);
    assert_eq!(a.analyze_into("the", &mut toks), 0);
}

#[test]
fn offsets_cover_the_original_token() {
    let text = "Mary’s lamb";
    let mut toks = Vec::new();
    plain().analyze_into(text, &mut toks);
    assert_eq!(&text[toks[0].offset_from..toks[0].offset_to], "Mary’s");
    assert_eq!(toks[0].text, "mary");
}

#[test]
fn tantivy_stream_equals_analyze_into() {
    use tantivy::tokenizer::Tokenizer as _;
    let text = "The quick brown fox's jumps over 3.14 lazy dogs; 中文 ÉCOLE  U.S.A. ".repeat(3);
    for config in configs() {
        let mut a = EnglishAnalyzer::new(config);
        let mut expected = Vec::new();
        a.analyze_into(&text, &mut expected);
        let mut got = Vec::new();
        let mut stream = a.token_stream(&text);
        stream.process(&mut |t| got.push(t.clone()));
        assert_eq!(got, expected);
    }
}

fn configs() -> [AnalyzerConfig; 4] {
    [
        AnalyzerConfig::default(),
        AnalyzerConfig {
            stemmer: Stemmer::None,
            stopwords: Stopwords::Lucene,
        },
        AnalyzerConfig {
            stemmer: Stemmer::Porter,
            stopwords: Stopwords::None,
        },
        AnalyzerConfig {
            stemmer: Stemmer::None,
            stopwords: Stopwords::None,
        },
    ]
}

/// Index the same documents through `PreTokenizedString` (from
/// `analyze_into`), through the registered tokenizer, and as an
/// [`AnalysedText`] (from `analyze_joined`, split by the registered
/// tokenizer); terms, term frequencies, positions and fieldnorms must be
/// equal.
#[test]
fn pretokenized_equals_registered_tokenizer_in_tantivy() -> tantivy::Result<()> {
    use tantivy::postings::Postings as _;
    use tantivy::schema::{IndexRecordOption, Schema, TextFieldIndexing, TextOptions};
    use tantivy::tokenizer::PreTokenizedString;
    use tantivy::{DocSet, Index, IndexWriter, TantivyDocument, Term};

    let docs = [
        "The cats' owners were running; the cat ran. Cats!",
        "U.S.A. e-mail don't O'Neil's AT&T http://x.com/a 3.14",
        "中文 ÉCOLE écoles ひらがな カタカナ the the the",
        "",
        &"word ".repeat(300),
    ];
    let indexing = TextFieldIndexing::default()
        .set_tokenizer(ANALYZER_NAME)
        .set_index_option(IndexRecordOption::WithFreqsAndPositions);
    let mut sb = Schema::builder();
    let raw = sb.add_text_field(
        "raw",
        TextOptions::default().set_indexing_options(indexing.clone()),
    );
    let pre = sb.add_text_field(
        "pre",
        TextOptions::default().set_indexing_options(indexing.clone()),
    );
    let joined = sb.add_text_field(
        "joined",
        TextOptions::default().set_indexing_options(indexing),
    );
    let schema = sb.build();
    let index = Index::create_in_ram(schema);
    index
        .tokenizers()
        .register(ANALYZER_NAME, text_analyzer(AnalyzerConfig::default()));
    let analyzer = EnglishAnalyzer::default();
    let mut counts = Vec::new();
    {
        let mut writer: IndexWriter = index.writer_with_num_threads(1, 15_000_000)?;
        for text in docs {
            let mut tokens = Vec::new();
            counts.push(analyzer.analyze_into(text, &mut tokens));
            let mut doc = TantivyDocument::default();
            let mut analysed = AnalysedText::new();
            assert_eq!(analyzer.analyze_joined(text, &mut analysed), tokens.len());
            assert!(analysed.is_exact());
            doc.add_text(joined, analysed.as_str());
            doc.add_text(raw, text);
            doc.add_pre_tokenized_text(
                pre,
                PreTokenizedString {
                    text: text.to_string(),
                    tokens,
                },
            );
            writer.add_document(doc)?;
        }
        writer.commit()?;
    }
    let searcher = index.reader()?.searcher();
    assert_eq!(searcher.segment_readers().len(), 1);
    let seg = &searcher.segment_readers()[0];
    let norms_raw = seg.get_fieldnorms_reader(raw)?;
    let norms_pre = seg.get_fieldnorms_reader(pre)?;
    let norms_joined = seg.get_fieldnorms_reader(joined)?;
    for (doc, &count) in counts.iter().enumerate() {
        let doc = doc as u32;
        assert_eq!(
            norms_raw.fieldnorm_id(doc),
            norms_pre.fieldnorm_id(doc),
            "doc {doc}"
        );
        assert_eq!(
            norms_joined.fieldnorm_id(doc),
            norms_pre.fieldnorm_id(doc),
            "doc {doc}"
        );
        // Fieldnorms are stored lossily (one byte); compare the codes.
        assert_eq!(
            norms_pre.fieldnorm_id(doc),
            tantivy::fieldnorm::FieldNormReader::fieldnorm_to_id(count as u32),
            "doc {doc}"
        );
    }
    // Same dictionary and same postings (doc, tf, positions) for every term.
    let inv_raw = seg.inverted_index(raw)?;
    let inv_pre = seg.inverted_index(pre)?;
    let inv_joined = seg.inverted_index(joined)?;
    let collect_terms = |inv: &tantivy::InvertedIndexReader| -> tantivy::Result<Vec<Vec<u8>>> {
        let mut stream = inv.terms().stream()?;
        let mut v = Vec::new();
        while stream.advance() {
            v.push(stream.key().to_vec());
        }
        Ok(v)
    };
    let terms_raw = collect_terms(&inv_raw)?;
    let terms_pre = collect_terms(&inv_pre)?;
    assert_eq!(terms_raw, terms_pre);
    assert_eq!(collect_terms(&inv_joined)?, terms_pre);
    assert!(terms_raw.len() > 20);
    for key in &terms_raw {
        let text = std::str::from_utf8(key).expect("utf-8 term");
        let mut postings = Vec::new();
        for (field, inv) in [(raw, &inv_raw), (pre, &inv_pre), (joined, &inv_joined)] {
            let term = Term::from_field_text(field, text);
            let mut p = inv
                .read_postings(&term, IndexRecordOption::WithFreqsAndPositions)?
                .expect("term present");
            let mut list = Vec::new();
            while p.doc() != tantivy::TERMINATED {
                let mut pos = Vec::new();
                p.positions(&mut pos);
                list.push((p.doc(), p.term_freq(), pos));
                p.advance();
            }
            postings.push(list);
        }
        assert_eq!(postings[0], postings[1], "term {text}");
        assert_eq!(postings[2], postings[1], "term {text}");
    }
    let cat = Term::from_field_text(pre, "cat");
    assert_eq!(searcher.doc_freq(&cat)?, 1);
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 256, ..ProptestConfig::default() })]

    #[test]
    fn prop_invariants(text in "\\PC{0,200}|[a-zA-Z'’. ,_&0-9-]{0,200}") {
        for config in configs() {
            let a = EnglishAnalyzer::new(config);
            let mut toks = Vec::new();
            let n = a.analyze_into(&text, &mut toks);
            prop_assert_eq!(n, toks.len());
            let mut last: Option<(usize, usize)> = None;
            for t in &toks {
                prop_assert!(!t.text.is_empty());
                prop_assert!(t.text.len() <= MAX_TOKEN_LEN);
                prop_assert!(t.offset_from < t.offset_to && t.offset_to <= text.len());
                prop_assert!(text.is_char_boundary(t.offset_from));
                prop_assert!(text.is_char_boundary(t.offset_to));
                if let Some((pos, end)) = last {
                    prop_assert!(t.position > pos);
                    prop_assert!(t.offset_from >= end);
                }
                last = Some((t.position, t.offset_to));
            }
            let texts: Vec<String> = toks.iter().map(|t| t.text.clone()).collect();
            prop_assert_eq!(a.terms(&text), texts);
        }
    }

    /// Splitting an `AnalysedText` gives back the tokens of `analyze_into`:
    /// texts and positions (gaps included), also when appended after
    /// another text's terms, and the cache (second round) changes nothing.
    #[test]
    fn prop_analysed_text_splits_into_the_tokens(
        first in "\\PC{0,60}|[a-zA-Z'’. ,_&0-9-]{0,60}",
        text in "\\PC{0,200}|[a-zA-Z'’. ,_&0-9-]{0,200}|(the |a |cats |is |running ){0,40}",
    ) {
        use tantivy::tokenizer::Tokenizer as _;
        for config in configs() {
            for _round in 0..2 {
                let mut a = EnglishAnalyzer::new(config);
                let mut toks = Vec::new();
                a.analyze_into(&first, &mut toks);
                let mut joined = AnalysedText::new();
                for t in &toks {
                    joined.push(t.position, &t.text);
                }
                let n = a.analyze_joined(&text, &mut joined);
                prop_assert_eq!(n, a.analyze_into(&text, &mut toks));
                prop_assert!(joined.is_exact());
                prop_assert_eq!(joined.tokens(), toks.len());
                let want: Vec<(String, usize)> =
                    toks.iter().map(|t| (t.text.clone(), t.position)).collect();
                let mut got = Vec::new();
                a.token_stream(joined.as_str())
                    .process(&mut |t| got.push((t.text.clone(), t.position)));
                prop_assert_eq!(got, want);
            }
        }
    }

    #[test]
    fn prop_stemmer_only_rewrites_an_ascii_tail(word in "[a-z]{0,20}|\\PC{0,12}") {
        let s = porter::stem(&word);
        prop_assert!(s.len() <= word.len());
        let common: usize = s
            .chars()
            .zip(word.chars())
            .take_while(|(a, b)| a == b)
            .map(|(a, _)| a.len_utf8())
            .sum();
        prop_assert!(s[common..].is_ascii(), "{} -> {}", word, s);
    }
}
