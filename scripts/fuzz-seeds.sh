# Sourced by scripts/fuzz.sh and scripts/fuzz-replay.sh: seeds_of TARGET prints
# the committed fixture directories a fuzz target starts from (none: the
# target makes its own inputs from a built-in fixture).
seeds_of() {
    case $1 in
        utf8_clean) echo tests/data/utf8 tests/data/html ;;
        topics_reader) echo topics tests/data/cacm ;;
        qrels_reader | run_reader) echo tests/data/eval tests/data/cacm ;;
        sample_qrels_reader) echo tests/data/eval/sample ;;
        warc_reader) echo tests/data/warc fuzz/seeds/docids/warc_reader ;;
        http_headers) echo tests/data/warc ;;
        trec_reader) echo tests/data/trec fuzz/seeds/docids/trec_reader ;;
        smart_reader) echo tests/data/cranfield fuzz/seeds/docids/smart_reader ;;
        jsonl_reader) echo tests/data/jsonl tests/data/clueweb22/txt fuzz/seeds/docids/jsonl_reader ;;
        tsv_reader) echo tests/data/tsv fuzz/seeds/docids/tsv_reader ;;
        record_span) echo tests/data/jsonl tests/data/tsv tests/data/trec tests/data/cranfield ;;
        html_extract | html_main) echo tests/data/html ;;
        stats_tsv) echo tests/data/report ;;
        spam_reader) echo tests/data/spam ;;
        index_json) echo fuzz/seeds/index_json ;;
        near_dup_files) echo fuzz/seeds/near_dup_files ;;
        feedback_vectors) echo fuzz/seeds/feedback_vectors ;;
        weighted_queries) echo fuzz/seeds/weighted_queries ;;
        first_stage_run) echo tests/data/eval ;;
        serve_params) echo fuzz/seeds/serve_params ;;
    esac
}

