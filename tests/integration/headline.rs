//! One headline: the terminal's first screen, the HTML report and the Markdown export of the same
//! stored run show the same headline figures, taken from the same results.

use crate::history::Fixture;

/// The headline rows of the first screen: the block table's four rows and the backup-shaped
/// rows, each as its cells (columns are two or more spaces apart).
fn first_screen_rows(text: &str) -> Vec<Vec<String>> {
    let block = text
        .lines()
        .skip_while(|l| !l.starts_with("MB/s"))
        .skip(1)
        .take(4);
    let backup = text
        .lines()
        .skip_while(|l| !l.starts_with("backup-shaped"))
        .skip(1)
        .take_while(|l| !l.is_empty());
    block
        .chain(backup)
        .map(|l| {
            l.split("  ")
                .map(str::trim)
                .filter(|c| !c.is_empty())
                .map(str::to_string)
                .collect()
        })
        .collect()
}

#[test]
fn the_first_screen_the_html_and_the_markdown_show_the_same_headline() {
    let f = Fixture::new();
    let tests = "seq-write,seq-read,4k-write,4k-read,tm-check,files-copy";
    let shown = String::from_utf8(
        f.run(&[
            "--tests",
            tests,
            "--sets",
            "small,mixed",
            "--threads",
            "1,2",
        ])
        .stdout,
    )
    .unwrap();
    let rows = first_screen_rows(&shown);
    assert_eq!(
        rows.len(),
        4 + 4,
        "four block rows, small, mixed, two tm-check: {shown}"
    );
    assert!(
        shown.contains("files-copy small-1t-cache-off"),
        "the copy a backup tool makes: {shown}"
    );
    let html_file = f.dir.path().join("report.html");
    f.ok(&["report", "latest", "--html", html_file.to_str().unwrap()]);
    let html = std::fs::read_to_string(&html_file).unwrap();
    let md = f.ok(&["export", "latest", "--format", "md"]);
    for row in &rows {
        assert_eq!(
            row.len(),
            3,
            "name, then two figures or a source and a figure: {row:?}"
        );
        for cell in row {
            assert!(
                html.contains(&format!(">{cell}</td>")),
                "HTML lacks {cell} of {row:?}"
            );
            assert!(
                md.contains(&format!("| {cell} |")),
                "Markdown lacks {cell} of {row:?}"
            );
        }
    }
    for name in ["small-1t-cache-off", "mixed-1t-cache-off"] {
        assert!(html.contains(&format!("files-copy {name}")), "{html}");
        assert!(md.contains(&format!("files-copy {name}")), "{md}");
    }
}
