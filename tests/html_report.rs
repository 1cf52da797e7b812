//! The class report (`--formats html`) in a real browser: headless Chromium (Debian's
//! `chromium` package, or the one `BROADSIDE_CHROMIUM` names) opens the file from disk,
//! renders the overview and one submission's page with no console message, and the page's
//! screenshot shows its board drawn as a grid.
//!
//! The README's screenshot (`docs/class-report.png`) is this test's: regenerate it with
//! `BROADSIDE_WRITE_SCREENSHOT=1 cargo test --test html_report`. Without that variable the
//! new screenshot must stay close to it (same size, under 10 % of pixels changed).

mod common;

use std::path::{Path, PathBuf};
use std::process::Command;

fn chromium() -> String {
    std::env::var("BROADSIDE_CHROMIUM").unwrap_or_else(|_| "chromium".to_string())
}

/// Grades the example class into `out` with `formats`; it must succeed.
fn grade(out: &Path, formats: &str) {
    common::broadside()
        .args(["grade", "--suite", "examples/grading-repo/suites"])
        .args(["--submissions", "examples/grading-repo/class", "--out"])
        .arg(out)
        .args(["--formats", formats, "--jobs", "2"])
        .assert()
        .success();
}

/// The example class graded with the class report, in a scratch folder.
fn graded_class() -> (tempfile::TempDir, PathBuf) {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("graded");
    grade(&out, "json,html");
    let file = out.join("class-report.html");
    assert!(file.is_file(), "grade --formats html writes {file:?}");
    (dir, file)
}

#[test]
fn a_run_without_html_removes_an_earlier_class_report() {
    let (dir, file) = graded_class();
    grade(&dir.path().join("graded"), "json");
    assert!(
        !file.exists(),
        "a stale class report stays beside the new summary"
    );
}

/// Chromium's console messages while it renders `url`, and its screenshot (1100×1400).
fn render(url: &str, shot: &Path) -> Vec<String> {
    common::needs(
        &chromium(),
        Some("BROADSIDE_CHROMIUM"),
        "apt-get install chromium",
    );
    let profile = tempfile::tempdir().unwrap();
    let out = Command::new(chromium())
        .args([
            "--headless",
            "--no-sandbox",
            "--disable-gpu",
            "--hide-scrollbars",
        ])
        .args(["--no-first-run", "--disable-extensions", "--mute-audio"])
        .arg(format!("--user-data-dir={}", profile.path().display()))
        .args([
            "--enable-logging=stderr",
            "--v=0",
            "--window-size=1100,1400",
        ])
        .arg(format!("--screenshot={}", shot.display()))
        .arg(url)
        .output()
        .unwrap();
    assert!(
        out.status.success() && shot.is_file(),
        "chromium rendered {url}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stderr)
        .lines()
        .filter(|l| l.contains(":CONSOLE"))
        .map(String::from)
        .collect()
}

fn url(file: &Path, fragment: &str) -> String {
    format!("file://{}{fragment}", file.display())
}

/// The screenshot's pixels as RGB triples, and its size.
fn pixels(png: &Path) -> (u32, u32, Vec<[u8; 3]>) {
    let decoder = png::Decoder::new(std::io::BufReader::new(std::fs::File::open(png).unwrap()));
    let mut reader = decoder.read_info().unwrap();
    let mut buf = vec![0; reader.output_buffer_size().unwrap()];
    let info = reader.next_frame(&mut buf).unwrap();
    let channels = info.color_type.samples();
    let px = buf[..info.buffer_size()]
        .chunks(channels)
        .map(|c| [c[0], c[1], c[2]])
        .collect();
    (info.width, info.height, px)
}

#[test]
fn the_console_check_sees_a_page_that_logs_an_error() {
    // The check below is only worth its pass if it sees a console error when there is one.
    let dir = tempfile::tempdir().unwrap();
    let page = dir.path().join("bad.html");
    std::fs::write(
        &page,
        "<!doctype html><p>x</p><script>console.error('seen'); missing();</script>",
    )
    .unwrap();
    let messages = render(&url(&page, ""), &dir.path().join("bad.png"));
    assert_eq!(messages.len(), 2, "{messages:?}");
    assert!(
        messages[1].contains("missing is not defined"),
        "{messages:?}"
    );
}

#[test]
fn the_class_report_renders_in_a_browser_with_no_console_message() {
    let (dir, file) = graded_class();
    let html = std::fs::read_to_string(&file).unwrap();
    // Self-contained: nothing fetched, nothing run.
    for outside in ["<script", "<link", "src=\"http", "href=\"http", "@import"] {
        assert!(!html.contains(outside), "the report holds {outside}");
    }
    assert!(html.contains("<svg"), "the score distribution is a chart");
    for id in ["alice", "bob", "carol"] {
        assert!(html.contains(&format!(">{id}</a>")), "{id} is listed");
    }
    let overview = dir.path().join("overview.png");
    assert_eq!(render(&url(&file, ""), &overview), Vec::<String>::new());
    let page = dir.path().join("bob.png");
    assert_eq!(render(&url(&file, "#s-2"), &page), Vec::<String>::new());

    // Bob's page draws the reference's board: water and ship cells in their colours (the
    // class report's CSS), which the overview has none of.
    let count = |px: &[[u8; 3]], rgb: [u8; 3]| px.iter().filter(|p| **p == rgb).count();
    let (water, ship) = ([0xbe, 0xe3, 0xf8], [0x4a, 0x55, 0x68]);
    let (w, h, bob) = pixels(&page);
    assert_eq!((w, h), (1100, 1400));
    let (_, _, over) = pixels(&overview);
    assert!(count(&bob, water) > 5_000, "water cells drawn");
    assert!(count(&bob, ship) > 1_000, "ship cells drawn");
    assert_eq!(
        count(&over, water),
        0,
        "the overview shows no submission's page"
    );

    let readme_shot = Path::new("docs/class-report.png");
    if std::env::var_os("BROADSIDE_WRITE_SCREENSHOT").is_some() {
        std::fs::create_dir_all("docs").unwrap();
        std::fs::copy(&page, readme_shot).unwrap();
        return;
    }
    let (rw, rh, pinned) = pixels(readme_shot);
    assert_eq!(
        (rw, rh),
        (w, h),
        "the README's screenshot has the same size"
    );
    let changed = bob
        .iter()
        .zip(&pinned)
        .filter(|(a, b)| a.iter().zip(b.iter()).any(|(x, y)| x.abs_diff(*y) > 48))
        .count();
    assert!(
        changed * 10 < bob.len(),
        "{changed} of {} pixels differ from docs/class-report.png; if the report changed on purpose, regenerate it with BROADSIDE_WRITE_SCREENSHOT=1 cargo test --test html_report",
        bob.len()
    );
}
