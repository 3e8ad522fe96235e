#!/usr/bin/env python3
"""Self-test of scripts/code-shape.py on tricky Rust snippets (standard
library only).

  python3 scripts/test_code_shape.py
  python3 -m pytest scripts/test_code_shape.py
"""
import contextlib
import importlib.util
import io
import os
import sys
import tempfile
import textwrap
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
_spec = importlib.util.spec_from_file_location("code_shape", os.path.join(HERE, "code-shape.py"))
cs = importlib.util.module_from_spec(_spec)
sys.modules["code_shape"] = cs
_spec.loader.exec_module(cs)


def shape(src):
    return cs.analyse_source(textwrap.dedent(src).lstrip("\n"))


def fns(src):
    """{name: (first line, lines, params, test)} of a snippet."""
    return {f.name: (f.line, f.lines, f.params, f.test) for f in shape(src).functions}


class Lexing(unittest.TestCase):
    def test_raw_strings_with_braces_and_quotes(self):
        got = fns('''
            fn a() -> &'static str {
                let x = r#"{ "}" fn fake() { "#;
                let y = r##"}}} "# still inside "##;
                let z = br"{{";
                x
            }
            fn b() {}
        ''')
        self.assertEqual(got, {"a": (1, 6, 0, False), "b": (7, 1, 0, False)})

    def test_strings_bytes_and_escapes(self):
        got = fns(r'''
            fn a() {
                let s = "a \" { quote";
                let t = b"}";
                let u = c"{";
                let v = "multi
            line } fn g() {";
                let w = "\\";
            }
        ''')
        self.assertEqual(got, {"a": (1, 8, 0, False)})

    def test_char_literals_against_lifetimes(self):
        got = fns(r'''
            fn pick<'a, 'b: 'a>(x: &'a str, y: &'b str, c: char) -> &'a str {
                if c == '{' || c == '\'' || c == '"' || c == '\u{7d}' || c == b'}' as char {
                    return x;
                }
                'outer: loop {
                    break 'outer;
                }
                let _: &'static str = y;
                x
            }
        ''')
        self.assertEqual(got, {"pick": (1, 10, 3, False)})

    def test_comments_nested_and_doc(self):
        got = fns('''
            // fn fake_line() {
            /* fn fake_block() { /* nested { */ still comment } */
            /// ```
            /// fn in_doc() {}
            /// ```
            fn real() {
                // }
                let _ = 1; /* } */
            }
        ''')
        self.assertEqual(got, {"real": (6, 4, 0, False)})


class Functions(unittest.TestCase):
    def test_qualifiers_and_where_clauses(self):
        got = fns('''
            pub(crate) async fn a(x: u8) {}
            const fn b() -> u8 { 1 }
            pub unsafe fn c(p: *const u8) {}
            pub(super) const unsafe fn d() {}
            extern "C" fn e(x: i32) -> i32 { x }
            pub fn g<T, U, F: Fn(u8) -> u8>(t: T, u: U, f: F) -> Vec<T>
            where
                T: Clone + Into<std::collections::HashMap<u8, u8>>,
                U: Iterator<Item = (u8, u8)>,
            {
                vec![t]
            }
        ''')
        self.assertEqual(got, {
            "a": (1, 1, 1, False), "b": (2, 1, 0, False), "c": (3, 1, 1, False),
            "d": (4, 1, 0, False), "e": (5, 1, 1, False), "g": (6, 7, 3, False)})

    def test_function_pointers_and_closures_are_not_functions(self):
        got = fns('''
            type Callback = fn(u8) -> u8;
            fn apply(f: fn(u8) -> u8, g: &dyn Fn(u8, u8) -> u8, h: unsafe extern "C" fn(i32)) -> fn(u8) -> u8 {
                let c = |a: u8, b: u8| a + b;
                let d = move || { 1 };
                f
            }
        ''')
        self.assertEqual(got, {"apply": (2, 5, 3, False)})

    def test_parameters(self):
        got = fns('''
            fn many(
                a: u8,
                (b, c): (u8, u8),
                d: HashMap<u8, Vec<(u8, u8)>>,
                e: [u8; 4],
                f: impl Fn(u8, u8) -> u8,
                #[allow(unused)] g: Option<&'static str>,
                h: u8,
            ) {
            }
            fn none() {}
            fn trailing(a: u8,) {}
        ''')
        self.assertEqual(got["many"][1:3], (10, 7))
        self.assertEqual(got["none"][2], 0)
        self.assertEqual(got["trailing"][2], 1)

    def test_self_is_not_a_parameter(self):
        got = fns('''
            struct S;
            impl<'a> Iterator for Wrapper<'a, S> {
                fn a(self) {}
                fn b(&self, x: u8) {}
                fn c(&mut self, x: u8, y: u8) {}
                fn d(&'a mut self) {}
                fn e(mut self) {}
                fn f(self: Box<Self>, x: u8) {}
                fn g(self: &std::pin::Pin<&mut Self>) {}
            }
        ''')
        self.assertEqual({k: v[2] for k, v in got.items()},
                         {"Wrapper::a": 0, "Wrapper::b": 1, "Wrapper::c": 2, "Wrapper::d": 0,
                          "Wrapper::e": 0, "Wrapper::f": 1, "Wrapper::g": 0})

    def test_methods_and_trait_declarations(self):
        got = fns('''
            pub trait Reader {
                fn next(&mut self) -> Option<u8>;
                fn size_hint(&self) -> usize;
                fn skip(&mut self, n: usize) {
                    for _ in 0..n {
                        self.next();
                    }
                }
            }
            impl<T: Reader> Reader for Counted<T>
            where
                T: Clone,
            {
                fn next(&mut self) -> Option<u8> {
                    None
                }
                fn size_hint(&self) -> usize { 0 }
            }
            impl fmt::Display for crate::x::Thing {
                fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result { Ok(()) }
            }
            extern "C" {
                fn abs(x: i32) -> i32;
            }
        ''')
        self.assertEqual(got, {
            "Reader::skip": (4, 5, 1, False),
            "Counted::next": (14, 3, 0, False),
            "Counted::size_hint": (17, 1, 0, False),
            "Thing::fmt": (20, 1, 1, False)})

    def test_nested_functions(self):
        got = fns('''
            fn outer(a: u8) -> u8 {
                fn inner(b: u8, c: u8) -> u8 {
                    b + c
                }
                inner(a, a)
            }
        ''')
        self.assertEqual(got, {"outer": (1, 6, 1, False), "outer::inner": (2, 3, 2, False)})

    def test_macro_rules_bodies_are_skipped(self):
        got = fns('''
            macro_rules! make {
                ($name:ident) => {
                    fn $name() {}
                    fn fixed() { let _ = "{"; }
                };
            }
            fn after() {}
        ''')
        self.assertEqual(got, {"after": (7, 1, 0, False)})


class Tests(unittest.TestCase):
    def test_cfg_test_module_and_test_functions(self):
        s = shape('''
            pub fn lib_fn() {
                #[cfg(test)]
                if true {
                    count();
                }
            }

            #[cfg(test)]
            mod tests {
                use super::*;

                fn helper() {}

                #[test]
                fn works() {
                    helper();
                }
            }

            #[test]
            fn loose_test() {}

            #[cfg(all(test, feature = "slow"))]
            fn slow_helper() {}

            #[cfg(not(test))]
            fn not_test() {}

            #[cfg(any(test, fuzzing))]
            fn maybe() {}
        ''')
        got = {f.name: f.test for f in s.functions}
        self.assertEqual(got, {"lib_fn": False, "helper": True, "works": True, "loose_test": True,
                               "slow_helper": True, "not_test": False, "maybe": False})
        self.assertEqual(s.lines, 30)
        # 2-5 (the cfg'd statement), 8-18 (the module), 20-21, 23-24
        self.assertEqual(s.test_lines, 4 + 11 + 2 + 2)
        self.assertEqual(s.code_lines, 11)

    def test_cfg_test_items_and_fields(self):
        s = shape('''
            struct S {
                a: u8,
                #[cfg(test)]
                b: u8,
            }
            #[cfg(test)]
            const C: [u8; 2] = [1, 2];
            #[cfg(test)]
            #[allow(dead_code)]
            impl S {
                fn t(&self) {}
            }
        ''')
        self.assertEqual([(f.name, f.test) for f in s.functions], [("S::t", True)])
        self.assertEqual(s.test_lines, 2 + 2 + 5)

    def test_inner_cfg_test_marks_the_whole_file(self):
        s = shape('''
            #![cfg(test)]
            fn a() {}
        ''')
        self.assertTrue(s.all_test)
        self.assertEqual(s.code_lines, 0)
        self.assertEqual([f.test for f in s.functions], [True])

    def test_module_declarations(self):
        s = shape('''
            mod plain;
            #[cfg(test)]
            mod tests;
            #[cfg(test)]
            #[path = "../other/x.rs"]
            pub(crate) mod shared;
        ''')
        self.assertEqual([(m.name, m.path_attr, m.test) for m in s.mods],
                         [("plain", None, False), ("tests", None, True),
                          ("shared", "../other/x.rs", True)])


class Tree(unittest.TestCase):
    def test_sections_of_a_tree(self):
        layout = {
            "core/src/lib.rs": "mod a;\nmod shared;\n#[cfg(test)]\nmod old;\nfn lib() {}\n",
            "core/src/shared.rs": "fn shared() {}\n",
            "core/src/fixture.rs": "fn fixture() {}\n",
            "core/src/a.rs": "mod b;\n#[cfg(test)]\nmod tests;\nfn a() {}\n",
            "core/src/a/b.rs": "fn b(a: u8, b: u8, c: u8, d: u8, e: u8, f: u8, g: u8) {}\n",
            "core/src/a/tests.rs": "mod deep;\nfn t() {}\n",
            "core/src/a/tests/deep.rs": "fn d() {}\n",
            "core/src/old.rs": "mod sub;\nfn o() {}\n",
            "core/src/old/sub.rs": "fn s() {}\n",
            "core/src/x_tests.rs": "fn x() {}\n",
            "core/tests/it.rs": "fn it() {}\n",
            "core/examples/e.rs": "fn ex() {}\n",
            "core/benches/b.rs": "fn bm() {}\n",
            "bench/lib.rs": "fn bench_lib() {}\n",
            "fuzz/fuzz_targets/f.rs": "fn f() {}\n",
            "tests/root.rs": "fn root() {}\n",
            "target/debug/build/out.rs": "fn generated() {}\n",
            ".venv/lib/x.rs": "fn hidden() {}\n",
            "cli/main.rs": "fn main() {\n" + "    let _ = 1;\n" * 85 + "}\n"
                           "#[cfg(test)]\n#[path = \"../core/src/shared.rs\"]\nmod shared_too;\n"
                           "#[cfg(test)]\n#[path = \"../core/src/fixture.rs\"]\nmod fixture;\n",
        }
        with tempfile.TemporaryDirectory() as root:
            for rel, text in layout.items():
                p = os.path.join(root, rel)
                os.makedirs(os.path.dirname(p), exist_ok=True)
                with open(p, "w") as f:
                    f.write(text)
            _, _, kinds, functions = cs.analyse_tree(root)
            got = {f.name: f.kind for f in functions}
            self.assertEqual(got, {
                "lib": "library", "a": "library", "b": "library", "main": "library",
                "shared": "library", "fixture": "test",
                "t": "test", "d": "test", "o": "test", "s": "test", "x": "test", "it": "test",
                "root": "test", "ex": "example", "bm": "bench", "bench_lib": "bench", "f": "fuzz"})
            self.assertEqual(sorted(k for k, v in kinds.items() if v == "example"), ["core/examples/e.rs"])
            self.assertEqual(sorted(k for k, v in kinds.items() if v == "bench"),
                             ["bench/lib.rs", "core/benches/b.rs"])
            rep = cs.summarise(root, 80, 6, 700)
            lib = rep["sections"]["library"]
            self.assertEqual((lib["functions"], lib["long_functions"], lib["many_params"]), (5, 1, 1))
            self.assertEqual(lib["offenders"]["long_functions"][0]["lines"], 87)
            self.assertEqual(lib["offenders"]["many_params"][0]["params"], 7)
            with contextlib.redirect_stdout(io.StringIO()) as out:
                self.assertEqual(cs.main(["--root", root, "--json"]), 0)
                self.assertEqual(cs.main(["--root", root, "--list"]), 0)
                self.assertEqual(cs.main(["--root", root, "--check"]), 1)
                self.assertEqual(cs.main(["--root", root, "--check", "--max-lines", "90",
                                          "--max-params", "7"]), 0)
            self.assertIn("cli/main.rs:1 main 87 lines", out.getvalue())
            self.assertIn("core/src/a/b.rs:1 b 7 params", out.getvalue())


if __name__ == "__main__":
    unittest.main()
