//! Tests over the sample topic files committed under `topics/` (see
//! `topics/SOURCES.md`), one per format family.

use std::path::Path;

use super::{Topic, TopicFormat, read_topics};

fn read(name: &str) -> (TopicFormat, Vec<Topic>) {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../topics")
        .join(name);
    read_topics(&path).unwrap_or_else(|e| panic!("{e}"))
}

#[test]
fn robust04() {
    let (f, t) = read("topics.robust04.txt");
    assert_eq!(f, TopicFormat::TrecSgml);
    assert_eq!(t.len(), 250);
    assert_eq!((t[0].id.as_str(), t[249].id.as_str()), ("301", "700"));
    assert_eq!(t[0].title, "International Organized Crime");
    assert_eq!(t[249].title, "gasoline tax U.S.");
    assert_eq!(
        t[249].description.as_deref(),
        Some("What are the arguments for and against an increase in gasoline taxes in the U.S.?")
    );
    assert!(
        t[249]
            .narrative
            .as_deref()
            .unwrap()
            .starts_with("Relevant documents present")
    );
    assert!(
        t.iter()
            .all(|t| t.description.is_some() && t.narrative.is_some())
    );
    // 301-450 and 601-700
    let ids: Vec<u32> = t.iter().map(|t| t.id.parse().unwrap()).collect();
    let want: Vec<u32> = (301..=450).chain(601..=700).collect();
    assert_eq!(ids, want);
}

#[test]
fn adhoc_51_100_tipster() {
    let (f, t) = read("topics.adhoc.51-100.txt");
    assert_eq!(f, TopicFormat::TrecSgml);
    assert_eq!(t.len(), 50);
    assert_eq!((t[0].id.as_str(), t[49].id.as_str()), ("051", "100"));
    assert_eq!(t[0].title, "Airbus Subsidies");
    assert_eq!(t[49].title, "Controlling the Transfer of High Technology");
    let dom = t[0]
        .extra
        .iter()
        .find(|(k, _)| k == "dom")
        .map(|(_, v)| v.as_str());
    assert_eq!(dom, Some("International Economics"));
    for tag in ["head", "smry", "con", "fac"] {
        assert!(
            t[0].extra.iter().any(|(k, _)| k == tag),
            "missing <{tag}>: {:?}",
            t[0].extra
        );
    }
    assert!(
        t[0].description
            .as_deref()
            .unwrap()
            .starts_with("Document will discuss government")
    );
}

#[test]
fn web_track_1_200() {
    let files = [
        ("topics.web.1-50.txt", 1, 50, 243),
        ("topics.web.51-100.txt", 51, 100, 218),
        ("topics.web.101-150.txt", 101, 150, 168),
        ("topics.web.151-200.txt", 151, 200, 195),
    ];
    for (name, first, last, subtopics) in files {
        let (f, t) = read(name);
        assert_eq!(f, TopicFormat::WebXml, "{name}");
        assert_eq!(t.len(), 50, "{name}");
        assert_eq!(t[0].id, first.to_string(), "{name}");
        assert_eq!(t[49].id, last.to_string(), "{name}");
        assert_eq!(
            t.iter().map(|t| t.subtopics.len()).sum::<usize>(),
            subtopics,
            "{name}"
        );
        assert!(
            t.iter()
                .all(|t| t.kind.is_some() && t.description.is_some()),
            "{name}"
        );
    }
    let (_, t) = read("topics.web.1-50.txt");
    assert_eq!(t[0].title, "obama family tree");
    assert_eq!(t[0].kind.as_deref(), Some("faceted"));
    assert!(
        t[0].description
            .as_deref()
            .unwrap()
            .starts_with("Find information on President Barack Obama's family")
    );
    let (_, t) = read("topics.web.151-200.txt");
    assert_eq!(t[49].title, "ontario california airport");
}

#[test]
fn cacm() {
    let (f, t) = read("topics.cacm.txt");
    assert_eq!(f, TopicFormat::AnseriniCacm);
    assert_eq!(t.len(), 64);
    assert_eq!((t[0].id.as_str(), t[63].id.as_str()), ("1", "64"));
    assert!(
        t[0].title
            .starts_with("What articles exist which deal with TSS (Time Sharing System), an"),
        "{}",
        t[0].title
    );
    assert!(
        t[63].title.starts_with(
            "List all articles on EL1 and ECL (EL1 may be given as EL/1; I don't remember"
        ),
        "{}",
        t[63].title
    );
}
