//! Suggestions for the natural mistakes of a first run: naming a student's source file where
//! scenarios go, a target kind spelt `py:`, forgetting both scenario paths and
//! `--assignment`. Each suggestion is the command the user most likely meant.

use broadside::spec::{Spec, SpecSet};
use broadside::target::kind_of_source;
use camino::{Utf8Path, Utf8PathBuf};

/// The target that grades the source file `path`: its own kind with the file, or for Java
/// the folder (a Java program is compiled from all of its sources).
pub fn target_for_source(path: &Utf8Path) -> Option<String> {
    let kind = kind_of_source(path)?;
    let at: &Utf8Path = match kind {
        "java" => path
            .parent()
            .filter(|p| !p.as_str().is_empty())
            .unwrap_or(Utf8Path::new(".")),
        _ => path,
    };
    Some(format!("{kind}:{}", shlex::try_quote(at.as_str()).ok()?))
}

/// Whether `dir` looks like a submission, not scenarios: no `.toml` directly in it and a
/// source file [`kind_of_source`] knows.
pub fn is_submission_folder(dir: &Utf8Path) -> bool {
    let Ok(entries) = dir.read_dir_utf8() else {
        return false;
    };
    let names: Vec<Utf8PathBuf> = entries
        .filter_map(Result::ok)
        .map(|e| e.path().to_owned())
        .collect();
    !names.iter().any(|p| p.extension() == Some("toml"))
        && names.iter().any(|p| kind_of_source(p).is_some())
}

/// The target that grades the submission folder `dir`: the kind of what it holds.
pub fn target_for_folder(dir: &Utf8Path) -> Option<String> {
    let kind = broadside::target::folder_kind(dir)?;
    Some(format!("{kind}:{}", shlex::try_quote(dir.as_str()).ok()?))
}

/// The command that checks `target` (as the user typed it, a typo in its kind mended)
/// against the published scenarios of the assignment it is most likely written for.
pub fn self_check_command(target: &str, specs: &SpecSet) -> String {
    let target = broadside::target::meant_target(target).unwrap_or_else(|| target.to_string());
    let Some((kind, path)) = target.split_once(':') else {
        return "broadside run --assignment solo-10x10".into();
    };
    let assignments = likely_assignments(path.into(), kind, specs);
    match assignments.as_slice() {
        [] => format!("broadside run --assignment ID --target {target}"),
        [one] => format!("broadside run --assignment {one} --target {target}"),
        [first, rest @ ..] => format!(
            "broadside run --assignment {first} --target {target}   (or --assignment {})",
            rest.join(" or ")
        ),
    }
}

/// The assignments the submission at `path` (a file or a folder) is most likely written
/// for: among the specs of its language, those whose checked functions its sources name
/// most often, or all of that language's when they name none.
fn likely_assignments(path: &Utf8Path, kind: &str, specs: &SpecSet) -> Vec<String> {
    let text = sources(path).join("\n");
    let language = if kind == "native" { "python" } else { kind };
    let candidates: Vec<&Spec> = specs
        .ids()
        .into_iter()
        .filter_map(|id| specs.get(id).map(|s| s.as_ref()))
        .filter(|s| s.language.name() == language)
        .collect();
    let scores: Vec<usize> = candidates.iter().map(|s| named(s, &text)).collect();
    let best = scores.iter().copied().max().unwrap_or(0);
    candidates
        .iter()
        .zip(&scores)
        .filter(|(_, n)| best == 0 || **n == best)
        .map(|(s, _)| s.id.clone())
        .collect()
}

/// How many of the functions `spec`'s checks judge `text` names.
fn named(spec: &Spec, text: &str) -> usize {
    let mut functions: Vec<&str> = spec
        .modes
        .values()
        .flat_map(|r| r.checks.iter())
        .flat_map(|c| c.function.split(','))
        .map(str::trim)
        .filter(|f| !f.is_empty())
        .collect();
    functions.sort_unstable();
    functions.dedup();
    let functions = functions.iter().filter(|f| text.contains(*f)).count();
    // Whole programs define no checked functions: their own words tell them apart (a
    // `GrenadeWar` class, a `drone` command), as the assignment's id and powers name them.
    let lower = text.to_lowercase();
    let mut words: Vec<String> = spec
        .id
        .split(|c: char| !c.is_ascii_alphabetic())
        .filter(|w| w.len() > 3)
        .map(|w| w.trim_end_matches('s').to_lowercase())
        .collect();
    let rules = spec.rules(None);
    if rules.is_some_and(|r| r.drone_uses.is_some()) {
        words.push("drone".into());
    }
    if rules.is_some_and(|r| r.missile_uses.is_some()) {
        words.push("missile".into());
    }
    functions + words.iter().filter(|w| lower.contains(w.as_str())).count()
}

/// The text of `path`, or of the source files directly in it when it is a folder.
fn sources(path: &Utf8Path) -> Vec<String> {
    let files: Vec<Utf8PathBuf> = match path.read_dir_utf8() {
        Ok(entries) => entries
            .filter_map(Result::ok)
            .map(|e| e.path().to_owned())
            .filter(|p| kind_of_source(p).is_some())
            .collect(),
        Err(_) => vec![path.to_owned()],
    };
    files
        .iter()
        .filter_map(|f| std::fs::read_to_string(f).ok())
        .collect()
}
