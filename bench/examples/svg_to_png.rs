//! Renders an SVG file to PNG with resvg, so a figure written by a script
//! can be looked at and checked without a browser:
//! `cargo run -p sieve-bench --features text --example svg_to_png -- IN.svg OUT.png`
//! (without `--features text` the text is left out; with it, system fonts).
//! Prints the share of non-white pixels (a blank rendering is an error).
use resvg::tiny_skia;

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let [input, output] = args.as_slice() else {
        eprintln!("usage: svg_to_png IN.svg OUT.png");
        std::process::exit(2);
    };
    let svg = std::fs::read_to_string(input).expect("read the SVG");
    #[cfg_attr(not(feature = "text"), allow(unused_mut))]
    let mut opt = resvg::usvg::Options::default();
    #[cfg(feature = "text")]
    load_fonts(&mut opt);
    let tree = resvg::usvg::Tree::from_str(&svg, &opt).expect("parse the SVG");
    let size = tree.size().to_int_size();
    let mut pixmap = tiny_skia::Pixmap::new(size.width(), size.height()).expect("pixmap");
    pixmap.fill(tiny_skia::Color::WHITE);
    resvg::render(&tree, tiny_skia::Transform::default(), &mut pixmap.as_mut());
    let ink = pixmap
        .pixels()
        .iter()
        .filter(|p| {
            let c = p.demultiply();
            c.red() < 240 || c.green() < 240 || c.blue() < 240
        })
        .count();
    let share = ink as f64 / pixmap.pixels().len() as f64;
    pixmap.save_png(output).expect("write the PNG");
    println!(
        "{output}: {}x{}, {:.1}% ink",
        size.width(),
        size.height(),
        100.0 * share
    );
    if share < 0.01 {
        eprintln!("svg_to_png: the rendering is blank");
        std::process::exit(1);
    }
}

/// System fonts for the text, with a sans face that is there for
/// `sans-serif` (fontdb maps it to Arial).
#[cfg(feature = "text")]
fn load_fonts(opt: &mut resvg::usvg::Options) {
    let db = opt.fontdb_mut();
    db.load_system_fonts();
    let sans = db
        .faces()
        .flat_map(|f| f.families.iter().map(|(name, _)| name.clone()))
        .filter(|name| name.contains("Sans") && !name.contains("Mono"))
        .min();
    if let Some(family) = sans {
        db.set_sans_serif_family(family);
    }
}
