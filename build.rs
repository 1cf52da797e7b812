//! Rebuild when the published scenarios or the bundled specs and driver change: the binary
//! embeds them (include_dir!, include_str!).
fn main() {
    println!("cargo:rerun-if-changed=fixtures/scenarios");
    println!("cargo:rerun-if-changed=specs");
    println!("cargo:rerun-if-changed=drivers");
}
