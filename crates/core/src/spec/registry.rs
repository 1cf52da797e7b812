//! The specs a run knows: those bundled with broadside (`specs/*.toml`) plus any loaded from
//! files.

use super::{RawSpec, Spec};
use crate::diag::{self, Diagnostic, Source};
use std::collections::BTreeMap;
use std::sync::Arc;

static SPECS: include_dir::Dir<'static> =
    include_dir::include_dir!("$CARGO_MANIFEST_DIR/../../specs");

/// The bundled specs, `(file name, text)`, sorted by name: every `specs/*.toml` (one
/// assignment each), compiled into the binary. A new assignment's spec is bundled by adding
/// its file there; nothing lists them.
pub fn builtin_files() -> Vec<(String, &'static str)> {
    let mut files: Vec<(String, &'static str)> = SPECS
        .files()
        .filter(|f| f.path().extension().is_some_and(|e| e == "toml"))
        .filter_map(|f| {
            let text = f.contents_utf8()?;
            Some((format!("specs/{}", f.path().to_string_lossy()), text))
        })
        .collect();
    files.sort();
    files
}

/// The bundled marking files (`specs/marking/*.toml`), `(file name, text)`, sorted: each
/// assignment's scheme `<id>.toml` and, where it grades the student's own tests,
/// `<id>.tests.toml`. Nothing lists them.
pub fn builtin_marking_files() -> Vec<(String, &'static str)> {
    let mut files: Vec<(String, &'static str)> = SPECS
        .get_dir("marking")
        .into_iter()
        .flat_map(|d| d.files())
        .filter(|f| f.path().extension().is_some_and(|e| e == "toml"))
        .filter_map(|f| {
            let name = f.path().file_name()?.to_string_lossy().into_owned();
            Some((name, f.contents_utf8()?))
        })
        .collect();
    files.sort();
    files
}

/// Specs by assignment id.
#[derive(Debug, Clone, Default)]
pub struct SpecSet {
    specs: BTreeMap<String, Arc<Spec>>,
    /// The file each spec in use was read from, for one given as a file ([`SpecSet::insert_file`]).
    files: BTreeMap<String, camino::Utf8PathBuf>,
}

impl SpecSet {
    /// The bundled specs ([`builtin_files`]). Panics only if a bundled spec is broken, which
    /// the test `bundled_specs_load` rules out before release.
    pub fn builtin() -> SpecSet {
        let mut set = SpecSet::default();
        for (path, text) in builtin_files() {
            let spec = parse(&Source::new(&path, text)).unwrap_or_else(|d| panic!("{d}"));
            set.insert(spec);
        }
        set
    }

    /// Adds (or replaces, by id) a spec.
    pub fn insert(&mut self, spec: Spec) {
        self.files.remove(&spec.id);
        self.specs.insert(spec.id.clone(), Arc::new(spec));
    }

    /// Adds (or replaces, by id) a spec read from `path`, which [`SpecSet::file`] then names.
    pub fn insert_file(&mut self, spec: Spec, path: &camino::Utf8Path) {
        self.files.insert(spec.id.clone(), path.to_path_buf());
        self.specs.insert(spec.id.clone(), Arc::new(spec));
    }

    /// The file the spec of `id` in use was read from; `None` for a bundled one.
    pub fn file(&self, id: &str) -> Option<&camino::Utf8Path> {
        self.files.get(id).map(camino::Utf8PathBuf::as_path)
    }

    pub fn get(&self, id: &str) -> Option<&Arc<Spec>> {
        self.specs.get(id)
    }

    /// Known ids, sorted.
    pub fn ids(&self) -> Vec<&str> {
        self.specs.keys().map(String::as_str).collect()
    }
}

/// Parses and validates one spec file.
///
/// Errors: a [`Diagnostic`] at the TOML error's position, or at the file for a rule that
/// does not hold together (e.g. an event adding to a counter the spec does not keep).
pub fn parse(source: &Source) -> Result<Spec, Diagnostic> {
    let raw: RawSpec = toml::from_str(&source.text).map_err(|e| diag::from_toml(source, &e))?;
    let spec = Spec::from_raw(raw).map_err(|e| {
        let span = e
            .table
            .paths()
            .iter()
            .find_map(|path| locate(&source.text, path));
        Diagnostic::new(source, span, e.message)
    })?;
    for rules in spec.modes.values() {
        if let Err(m) = crate::engine::random_layout(rules, 0) {
            let span = locate(&source.text, "fleet");
            return Err(Diagnostic::new(source, span, m.to_string())
                .expected("a fleet that fits the board under its placement rule"));
        }
    }
    Ok(spec)
}

/// The span of the first line that opens table `name` (`[name]`, `[[name]]`, `[name.…]`) or
/// sets key `name`.
fn locate(text: &str, name: &str) -> Option<std::ops::Range<usize>> {
    let mut at = 0;
    for line in text.split_inclusive('\n') {
        let t = line.trim_start();
        let opens = [
            format!("[{name}]"),
            format!("[[{name}]]"),
            format!("[{name}."),
            format!("{name} ="),
        ]
        .iter()
        .any(|p| t.starts_with(p.as_str()));
        if opens {
            return Some(at..at + line.trim_end().len());
        }
        at += line.len();
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The bundled spec file of assignment `id`: its path and text.
    fn bundled(id: &str) -> (String, &'static str) {
        builtin_files()
            .into_iter()
            .find(|(p, _)| p.ends_with(&format!("{id}.toml")))
            .expect("a bundled spec")
    }

    #[test]
    fn a_checks_row_must_name_a_state_key_a_detail_or_a_step_kind() {
        let (path, text) = bundled("colab-6x6");
        let path = path.as_str();
        let bad = format!(
            "{text}\n[checks.shots_fired]\nfunction = \"fire\"\nclause = \"Step 7: made up\"\n"
        );
        let err = parse(&Source::new(path, bad.as_str())).expect_err("an unknown [checks] key");
        let shown = err.render(false);
        assert!(
            shown.contains("[checks.shots_fired] names neither"),
            "{shown}"
        );
        // The diagnostic underlines the row it is about (the message's words once sent it
        // to the `details` line, which it mentions).
        assert!(
            shown.lines().any(|l| l.contains(" | [checks.shots_fired]")),
            "{shown}"
        );
        let probe = format!(
            "{text}\n[checks.probe]\nfunction = \"create_game\"\ngiven = \"reference\"\nclause = \"Step 1: made up\"\n"
        );
        let err =
            parse(&Source::new(path, probe.as_str())).expect_err("a probe cannot be handed state");
        assert!(err.render(false).contains("builds its own games"));
    }

    #[test]
    fn a_table_of_the_wrong_kind_is_named_by_its_table_not_by_a_type_of_ours() {
        let (path, text) = bundled("colab-6x6");
        let bad = text.replacen("[board]", "board = 5\n[unused]", 1);
        let shown = parse(&Source::new(path.as_str(), bad.as_str()))
            .expect_err("a board that is not a table")
            .render(false);
        assert!(shown.contains("expected a `[board]` table"), "{shown}");
        assert!(!shown.contains("Raw"), "{shown}");
    }

    #[test]
    fn a_decision_named_by_an_event_or_a_query_is_checked_there() {
        let (path, text) = bundled("solo-10x10");
        let at = |bad: &str| {
            let e = parse(&Source::new(path.as_str(), bad)).expect_err("a wrong decision");
            let shown = e.render(false);
            let line = shown
                .lines()
                .find(|l| l.contains(" | ") && !l.trim().ends_with('|'));
            (shown.clone(), line.unwrap_or_default().to_string())
        };
        let (e, line) = at(&text.replace(
            "decision = \"off-board-call\"",
            "decision = \"no-such-decision\"",
        ));
        assert!(
            e.contains(
                "event `off-board` names decision `no-such-decision`, which is not recorded"
            ),
            "{e}"
        );
        assert!(line.contains("[events.off-board]"), "{e}");
        let (e, line) = at(&text.replace(
            "decision = \"check-if-hits-repeat\"",
            "decision = \"hit-returns-hit-ship\"",
        ));
        assert!(e.contains("query `fresh-hit` names decision `hit-returns-hit-ship`, which does not accept the other reading"), "{e}");
        assert!(line.contains("[queries.fresh-hit]"), "{e}");
    }

    #[test]
    fn bundled_specs_load() {
        let files = builtin_files();
        assert!(
            files.len() >= 5,
            "the bundled specs were not found: {files:?}"
        );
        for (path, text) in &files {
            match parse(&Source::new(path, *text)) {
                // Each bundled file is one assignment, named by its id.
                Ok(spec) => assert_eq!(*path, format!("specs/{}.toml", spec.id)),
                Err(d) => panic!("{}", d.render(false)),
            }
        }
        assert_eq!(SpecSet::builtin().ids().len(), files.len());
    }

    #[test]
    fn every_bundled_rule_and_decision_cites_its_handout() {
        for (path, text) in builtin_files() {
            let raw: RawSpec = toml::from_str(text).unwrap();
            let mut clauses = vec![
                &raw.board.clause,
                &raw.notation.clause,
                &raw.placement.clause,
                &raw.end.clause,
                &raw.display.clause,
            ];
            clauses.extend(raw.fleet.iter().map(|f| &f.clause));
            clauses.extend(raw.events.values().map(|e| &e.clause));
            clauses.extend(raw.counters.values());
            clauses.extend(raw.decisions.iter().flat_map(|d| [&d.clause, &d.reading]));
            clauses.extend(raw.checks.values().map(|c| &c.clause));
            if let Some(c) = clauses.iter().find(|c| c.trim().len() < 10) {
                panic!("{path}: a rule or decision without its clause: {c:?}");
            }
            assert!(
                raw.decisions.iter().all(|d| !d.other.trim().is_empty()),
                "{path}: a decision without its other reading"
            );
            assert!(!raw.decisions.is_empty(), "{path}: no decisions recorded");
            // An assignment graded through its functions names the function every kind of
            // check judges, so feedback can name it.
            if raw.language != crate::spec::Language::Java {
                for kind in raw.observe.iter().map(|k| k.name()).chain(["fire"]) {
                    assert!(
                        raw.checks.contains_key(kind),
                        "{path}: no [checks.{kind}] naming the function it judges"
                    );
                }
            }
            let handout = format!("../shared/handouts/{}", raw.handout);
            if std::path::Path::new("../shared/handouts").is_dir() {
                assert!(
                    std::path::Path::new(&handout).is_file(),
                    "{path}: names a handout that is not there: {handout}"
                );
            }
        }
    }
}
