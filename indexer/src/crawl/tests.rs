//! Unit tests for the crawl readers.
