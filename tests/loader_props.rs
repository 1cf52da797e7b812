//! The scenario loader never panics, whatever it is fed: random text, and published
//! scenarios with a byte cut out, a line repeated or numbers pushed to extremes.

use broadside::diag::Source;
use broadside::spec::SpecSet;
use proptest::prelude::*;

fn published_texts() -> Vec<String> {
    let mut out = Vec::new();
    for entry in walkdir::WalkDir::new("fixtures/scenarios").sort_by_file_name() {
        let entry = entry.unwrap();
        if entry.file_type().is_file() {
            out.push(std::fs::read_to_string(entry.path()).unwrap());
        }
    }
    assert!(!out.is_empty());
    out
}

/// Loads `text`; a scenario that loads is also played on the reference, which must not
/// panic either (extreme cells and counts included).
fn load(text: &str) {
    let specs = SpecSet::builtin();
    match broadside::scenario::parse(&Source::new("x.toml", text), &specs) {
        Ok(s) => {
            broadside::harness::run_scenario(&s, &mut broadside::target::Reference::new());
        }
        Err(ds) => {
            for d in ds {
                // Rendering must not panic either, and must name the file.
                assert!(d.render(false).contains("x.toml"));
            }
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]

    #[test]
    fn random_text_never_panics(text in "\\PC{0,200}") {
        load(&text);
    }

    #[test]
    fn mutated_published_scenarios_never_panic(pick in any::<prop::sample::Index>(), at in any::<prop::sample::Index>(), kind in 0u8..4) {
        let texts = published_texts();
        let text = &texts[pick.index(texts.len())];
        let lines: Vec<&str> = text.lines().collect();
        let i = at.index(lines.len().max(1));
        let mutated = match kind {
            0 => {
                let mut chars: Vec<char> = text.chars().collect();
                let c = at.index(chars.len().max(1));
                if c < chars.len() {
                    chars.remove(c);
                }
                chars.into_iter().collect()
            }
            1 => { let mut l = lines.clone(); if i < l.len() { l.insert(i, lines[i]); } l.join("\n") }
            2 => text.replace('1', "9223372036854775807").replace('2', "-9223372036854775808"),
            _ => { let mut l = lines.clone(); if i < l.len() { l.remove(i); } l.join("\n") }
        };
        load(&mutated);
    }
}
