//! Rebuild when the bundled specs or the published scenarios change: the crate embeds them
//! (include_dir!), from the repository's `specs/` and `fixtures/scenarios/`.

fn main() {
    println!("cargo:rerun-if-changed=../../specs");
    println!("cargo:rerun-if-changed=../../fixtures/scenarios");
}
