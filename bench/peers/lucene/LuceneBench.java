// Lucene on the search bench's synthetic collection: builds an index and times top-k BM25 queries,
// for bench/peers/search_growth.sh (compiled by bench/peers/setup_lucene.sh against the Lucene
// 9.9.1 classes inside the Anserini fat jar; Maven Central is not reachable from the bench host,
// so no Lucene 10).
//
//   java -cp CLASSES:anserini.jar LuceneBench index --index DIR [--docs DOCS.jsonl|-] [--ram-mb 512]
//   java -cp CLASSES:anserini.jar LuceneBench search --index DIR --topics TOPICS.tsv
//        [--hits 10 1000] [--runs 3] [--warmup-seconds 10] [--k1 0.9] [--b 0.4]
//   java -cp CLASSES:anserini.jar LuceneBench check --index DIR --topics TOPICS.tsv --run OUT.trec
//        [--hits 1000] [--exhaustive]
//   java -cp CLASSES:anserini.jar LuceneBench version
//
// DOCS.jsonl and TOPICS.tsv come from the `synth_export` example: text already analysed by sieve
// (stems, no stopwords), so the field is split on whitespace only (WhitespaceAnalyzer) and every
// system scores the same terms.
//
// index: one indexing thread (documents added from the main thread, SerialMergeScheduler so merges
// run in it too), field `docno` (StringField, stored) and `text` (indexed with DOCS_AND_FREQS: no
// positions, norms kept), BM25Similarity(k1, b) on the IndexWriterConfig, no compound files, then
// forceMerge(1) to one segment, as the search-benchmark-game's Lucene engines do (a no-op when the
// RAM buffer, --ram-mb, held every document and one segment was flushed). Prints one JSON line
// {"what": "lucene index", "docs", "seconds", "bytes", ...}; seconds include the last flush, the
// merge and the commit, which flush_merge_seconds gives alone.
//
// search: IndexSearcher over the one segment, no executor (one thread), query cache off,
// BM25Similarity(k1, b). A topic's terms become a BooleanQuery of SHOULD TermQuery clauses, a term
// repeated n times as BoostQuery(TermQuery, n) (sieve's qtf weighting; PISA's query_weighted). The
// Query objects are built before timing; the timed call is IndexSearcher.search with
// TopScoreDocCollector.createSharedManager(k, null, k): top k, hits counted only up to k, so the
// collector asks for ScoreMode.TOP_SCORES and Lucene may skip non-competitive documents. With
// TOP_SCORES a pure disjunction of two or more clauses is scored in Lucene 9.9.1 by
// MaxScoreBulkScorer (BooleanWeight.optionalBulkScorer; block-max MaxScore over the terms' impacts),
// not WANDScorer (used for disjunctions inside other queries); a one-term topic by the term's
// Weight.DefaultBulkScorer, which skips with impacts as well. The bulk scorer class of each topic is
// found once (Weight.bulkScorer on the segment, the call IndexSearcher.search makes) and reported.
// Timing: warm-up passes over all topics at every k until --warmup-seconds have passed (at least one
// pass, so the JIT has compiled the scoring loops), then for each k and each topic one warm-up call
// and --runs timed calls (System.nanoTime), the topic's figure the median; mean, p50 and p99
// (nearest rank, as pisa_search.py's latency()) over topics. One JSON line per k.
//
// check: writes a TREC run (topic, Q0, docno, rank, score, tag) of each topic's top k (default
// 1000) through the same collector (or with --exhaustive, hits counted to the end: no skipping), for
// comparison with an exact BM25 ranking (bench/peers/bm25_exact.py, bench/peers/run_diff.py).
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.PrintWriter;
import java.lang.management.ManagementFactory;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.stream.Stream;
import org.apache.lucene.analysis.core.WhitespaceAnalyzer;
import org.apache.lucene.document.Document;
import org.apache.lucene.document.Field;
import org.apache.lucene.document.FieldType;
import org.apache.lucene.document.StringField;
import org.apache.lucene.index.DirectoryReader;
import org.apache.lucene.index.IndexOptions;
import org.apache.lucene.index.IndexReader;
import org.apache.lucene.index.IndexWriter;
import org.apache.lucene.index.IndexWriterConfig;
import org.apache.lucene.index.LeafReaderContext;
import org.apache.lucene.index.SerialMergeScheduler;
import org.apache.lucene.index.StoredFields;
import org.apache.lucene.index.Term;
import org.apache.lucene.search.BooleanClause;
import org.apache.lucene.search.BooleanQuery;
import org.apache.lucene.search.BoostQuery;
import org.apache.lucene.search.BulkScorer;
import org.apache.lucene.search.CollectorManager;
import org.apache.lucene.search.IndexSearcher;
import org.apache.lucene.search.Query;
import org.apache.lucene.search.ScoreDoc;
import org.apache.lucene.search.ScoreMode;
import org.apache.lucene.search.TermQuery;
import org.apache.lucene.search.TopDocs;
import org.apache.lucene.search.TopScoreDocCollector;
import org.apache.lucene.search.Weight;
import org.apache.lucene.search.similarities.BM25Similarity;
import org.apache.lucene.store.Directory;
import org.apache.lucene.store.FSDirectory;
import org.apache.lucene.util.Version;

public final class LuceneBench {
  private static final String FIELD = "text";

  /** Command-line options: `--name value...`; a flag without values maps to an empty list. */
  private static Map<String, List<String>> options(String[] args, int from) {
    Map<String, List<String>> opts = new HashMap<>();
    List<String> cur = null;
    for (int i = from; i < args.length; i++) {
      if (args[i].startsWith("--")) {
        cur = new ArrayList<>();
        opts.put(args[i].substring(2), cur);
      } else if (cur == null) {
        die("unexpected argument " + args[i]);
      } else {
        cur.add(args[i]);
      }
    }
    return opts;
  }

  private static String one(Map<String, List<String>> o, String name, String dflt) {
    List<String> v = o.get(name);
    if (v == null || v.isEmpty()) {
      if (dflt == null) die("--" + name + " is required");
      return dflt;
    }
    return v.get(0);
  }

  private static void die(String msg) {
    System.err.println("LuceneBench: " + msg);
    System.exit(2);
  }

  private static String json(String s) {
    StringBuilder b = new StringBuilder("\"");
    for (char c : s.toCharArray()) {
      if (c == '"' || c == '\\') b.append('\\').append(c);
      else if (c < 0x20) b.append(String.format("\\u%04x", (int) c));
      else b.append(c);
    }
    return b.append('"').toString();
  }

  private static long dirBytes(Path dir) throws IOException {
    try (Stream<Path> s = Files.walk(dir)) {
      return s.filter(Files::isRegularFile).mapToLong(p -> p.toFile().length()).sum();
    }
  }

  private static double load() {
    return ManagementFactory.getOperatingSystemMXBean().getSystemLoadAverage();
  }

  // ---- index ----

  private static void index(Map<String, List<String>> o) throws IOException {
    Path dir = Paths.get(one(o, "index", null));
    String docs = one(o, "docs", "-");
    float k1 = Float.parseFloat(one(o, "k1", "0.9"));
    float b = Float.parseFloat(one(o, "b", "0.4"));
    IndexWriterConfig cfg =
        new IndexWriterConfig(new WhitespaceAnalyzer())
            .setOpenMode(IndexWriterConfig.OpenMode.CREATE)
            .setSimilarity(new BM25Similarity(k1, b))
            .setRAMBufferSizeMB(Double.parseDouble(one(o, "ram-mb", "512")))
            .setMergeScheduler(new SerialMergeScheduler())
            .setUseCompoundFile(false); // plain segment files, whatever the segment's size
    FieldType textType = new FieldType();
    textType.setTokenized(true);
    textType.setStored(false);
    textType.setOmitNorms(false);
    textType.setIndexOptions(IndexOptions.DOCS_AND_FREQS);
    textType.freeze();

    ObjectMapper mapper = new ObjectMapper();
    long t0 = System.nanoTime();
    long n = 0;
    long merge0;
    try (Directory d = FSDirectory.open(dir);
        IndexWriter w = new IndexWriter(d, cfg);
        BufferedReader in =
            docs.equals("-")
                ? new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8), 1 << 20)
                : Files.newBufferedReader(Paths.get(docs), StandardCharsets.UTF_8)) {
      Document doc = new Document();
      StringField docno = new StringField("docno", "", Field.Store.YES);
      Field text = new Field(FIELD, "", textType);
      doc.add(docno);
      doc.add(text);
      String line;
      while ((line = in.readLine()) != null) {
        if (line.isBlank()) continue;
        JsonNode j = mapper.readTree(line);
        JsonNode id = j.get("docno"), body = j.get("text");
        if (id == null || body == null) die("document line without docno or text: " + line);
        docno.setStringValue(id.asText());
        text.setStringValue(body.asText());
        w.addDocument(doc);
        if (++n % 1_000_000 == 0) System.err.println("LuceneBench: indexed " + n);
      }
      merge0 = System.nanoTime();
      w.forceMerge(1);
      w.commit();
    }
    long t1 = System.nanoTime();
    System.out.printf(
        "{\"what\": \"lucene index\", \"index\": %s, \"docs\": %d, \"seconds\": %.3f, "
            + "\"flush_merge_seconds\": %.3f, \"bytes\": %d, \"k1\": %s, \"b\": %s, \"lucene\": %s, "
            + "\"java\": %s}%n",
        json(dir.toString()), n, (t1 - t0) / 1e9, (t1 - merge0) / 1e9, dirBytes(dir), k1, b,
        json(Version.LATEST.toString()), json(System.getProperty("java.version")));
  }

  // ---- queries ----

  record Topic(String id, Query query) {}

  /** TOPICS.tsv (`id<TAB>terms`): each topic as SHOULD clauses, a repeated term boosted by its count. */
  private static List<Topic> topics(String path) throws IOException {
    List<Topic> out = new ArrayList<>();
    for (String line : Files.readAllLines(Paths.get(path), StandardCharsets.UTF_8)) {
      if (line.isEmpty()) continue;
      int tab = line.indexOf('\t');
      if (tab < 0) die("topic line without a tab: " + line);
      Map<String, Integer> counts = new LinkedHashMap<>();
      for (String t : line.substring(tab + 1).trim().split("\\s+")) {
        if (!t.isEmpty()) counts.merge(t, 1, Integer::sum);
      }
      BooleanQuery.Builder q = new BooleanQuery.Builder();
      for (Map.Entry<String, Integer> e : counts.entrySet()) {
        Query tq = new TermQuery(new Term(FIELD, e.getKey()));
        if (e.getValue() > 1) tq = new BoostQuery(tq, e.getValue());
        q.add(tq, BooleanClause.Occur.SHOULD);
      }
      out.add(new Topic(line.substring(0, tab), q.build()));
    }
    return out;
  }

  private static IndexSearcher searcher(IndexReader reader, Map<String, List<String>> o) {
    IndexSearcher s = new IndexSearcher(reader); // no executor: the calling thread only
    s.setQueryCache(null);
    s.setSimilarity(
        new BM25Similarity(
            Float.parseFloat(one(o, "k1", "0.9")), Float.parseFloat(one(o, "b", "0.4"))));
    return s;
  }

  /** Top k, total hits counted only up to k (ScoreMode.TOP_SCORES: skipping allowed). */
  private static CollectorManager<TopScoreDocCollector, TopDocs> topK(int k) {
    return TopScoreDocCollector.createSharedManager(k, null, k);
  }

  private static double pct(double[] sorted, double p) {
    int n = sorted.length;
    int r = (int) Math.ceil(p * n);
    return sorted[Math.min(Math.max(r, 1), n) - 1];
  }

  private static void search(Map<String, List<String>> o) throws IOException {
    List<Topic> topics = topics(one(o, "topics", null));
    List<String> hitsArg = o.getOrDefault("hits", List.of("10", "1000"));
    int[] ks = hitsArg.stream().mapToInt(Integer::parseInt).toArray();
    int runs = Math.max(Integer.parseInt(one(o, "runs", "3")), 1);
    double warmupSeconds = Double.parseDouble(one(o, "warmup-seconds", "10"));
    try (IndexReader reader = DirectoryReader.open(FSDirectory.open(Paths.get(one(o, "index", null))))) {
      IndexSearcher s = searcher(reader, o);

      // Which bulk scorer each topic runs with (the call IndexSearcher.search makes per segment).
      Map<String, Integer> paths = new TreeMap<>();
      for (Topic t : topics) {
        Weight w = s.createWeight(s.rewrite(t.query()), ScoreMode.TOP_SCORES, 1f);
        for (LeafReaderContext leaf : reader.leaves()) {
          BulkScorer bs = w.bulkScorer(leaf);
          String name = bs == null ? "none (no term in the index)" : bs.getClass().getName();
          name = name.substring(name.lastIndexOf('.') + 1);
          paths.merge(name, 1, Integer::sum);
        }
      }
      String path =
          paths.entrySet().stream().max(Map.Entry.comparingByValue()).map(Map.Entry::getKey).orElse("");
      StringBuilder pathsJson = new StringBuilder("{");
      for (Map.Entry<String, Integer> e : paths.entrySet()) {
        if (pathsJson.length() > 1) pathsJson.append(", ");
        pathsJson.append(json(e.getKey())).append(": ").append(e.getValue());
      }
      pathsJson.append('}');

      // JVM warm-up: passes over every topic at every k.
      long sink = 0;
      long w0 = System.nanoTime();
      int passes = 0;
      do {
        for (int k : ks) for (Topic t : topics) sink += s.search(t.query(), topK(k)).scoreDocs.length;
        passes++;
      } while ((System.nanoTime() - w0) / 1e9 < warmupSeconds);
      double warmup = (System.nanoTime() - w0) / 1e9;

      for (int k : ks) {
        double[] per = new double[topics.size()];
        long returned = 0;
        long[] times = new long[runs];
        for (int i = 0; i < topics.size(); i++) {
          Query q = topics.get(i).query();
          returned += s.search(q, topK(k)).scoreDocs.length; // warm-up
          for (int r = 0; r < runs; r++) {
            long t0 = System.nanoTime();
            TopDocs td = s.search(q, topK(k));
            times[r] = System.nanoTime() - t0;
            sink += td.scoreDocs.length;
          }
          long[] sorted = times.clone();
          Arrays.sort(sorted);
          per[i] = sorted[runs / 2] / 1e6;
        }
        double mean = Arrays.stream(per).sum() / per.length;
        double[] sorted = per.clone();
        Arrays.sort(sorted);
        System.out.printf(
            "{\"what\": \"lucene search\", \"system\": \"lucene\", \"hits\": %d, \"topics\": %d, "
                + "\"runs\": %d, \"returned\": %d, \"mean_ms\": %.6f, \"p50_ms\": %.6f, "
                + "\"p99_ms\": %.6f, \"k1\": %s, \"b\": %s, \"lucene\": %s, \"path\": %s, "
                + "\"paths\": %s, \"warmup_passes\": %d, \"warmup_s\": %.1f, \"java\": %s, "
                + "\"load\": %.2f}%n",
            k, topics.size(), runs, returned, mean, pct(sorted, 0.5), pct(sorted, 0.99),
            one(o, "k1", "0.9"), one(o, "b", "0.4"), json(Version.LATEST.toString()), json(path),
            pathsJson, passes, warmup, json(System.getProperty("java.version")), load());
        System.out.flush();
      }
      if (sink < 0) System.err.println(sink); // keeps the results alive
    }
  }

  private static void check(Map<String, List<String>> o) throws IOException {
    List<Topic> topics = topics(one(o, "topics", null));
    int k = Integer.parseInt(one(o, "hits", "1000"));
    boolean exhaustive = o.containsKey("exhaustive");
    String tag = exhaustive ? "lucene-exhaustive" : "lucene";
    try (IndexReader reader = DirectoryReader.open(FSDirectory.open(Paths.get(one(o, "index", null))));
        PrintWriter out =
            new PrintWriter(Files.newBufferedWriter(Paths.get(one(o, "run", null)), StandardCharsets.UTF_8))) {
      IndexSearcher s = searcher(reader, o);
      StoredFields stored = s.storedFields();
      for (Topic t : topics) {
        TopDocs td =
            s.search(
                t.query(),
                exhaustive ? TopScoreDocCollector.createSharedManager(k, null, Integer.MAX_VALUE) : topK(k));
        int rank = 1;
        for (ScoreDoc sd : td.scoreDocs) {
          String docno = stored.document(sd.doc).get("docno");
          out.printf("%s Q0 %s %d %.6f %s%n", t.id(), docno, rank++, sd.score, tag);
        }
      }
    }
  }

  public static void main(String[] args) throws IOException {
    if (args.length == 0) die("usage: LuceneBench index|search|check --index DIR ...");
    Map<String, List<String>> o = options(args, 1);
    switch (args[0]) {
      case "index" -> index(o);
      case "search" -> search(o);
      case "check" -> check(o);
      case "version" ->
          System.out.println("lucene " + Version.LATEST + ", java " + System.getProperty("java.version"));
      default -> die("unknown mode " + args[0] + " (index, search, check or version)");
    }
  }
}
