//! The guide's scenario example (docs/guide/scenarios.md) loads and passes, so the guide stays in step with the tool.

use broadside::diag::Source;
use broadside::report::Status;
use broadside::spec::SpecSet;

#[test]
fn readme_scenario_example_passes_on_the_reference() {
    let readme = std::fs::read_to_string("docs/guide/scenarios.md").unwrap();
    let start = readme
        .find("```toml\n")
        .expect("the README shows a TOML scenario")
        + "```toml\n".len();
    let end = start + readme[start..].find("```").unwrap();
    let source = Source::new(
        "docs/guide/scenarios.md (scenario example)",
        &readme[start..end],
    );
    let scenario = broadside::scenario::parse(&source, &SpecSet::builtin()).unwrap_or_else(|ds| {
        panic!(
            "{}",
            ds.iter()
                .map(|d| d.render(false))
                .collect::<Vec<_>>()
                .join("\n")
        )
    });
    let result =
        broadside::harness::run_scenario(&scenario, &mut broadside::target::Reference::new());
    assert_eq!(result.status, Status::Passed, "{:?}", result.divergence);
}
