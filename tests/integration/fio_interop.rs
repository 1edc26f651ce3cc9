//! fio interoperability, end to end: a real destbench run is exported as an fio job file, the
//! fio package runs that file (small file, short jobs), its JSON result is imported back as a
//! run, and `compare` sets the two side by side with a ratio for every variant.

use crate::history::Fixture;
use crate::support::{exits, have_program, skip};

#[test]
fn an_exported_job_file_runs_in_fio_and_its_result_compares() {
    if !have_program("fio") {
        skip("needs fio (Debian package fio) for the fio round trip");
        return;
    }
    let f = Fixture::new();
    let dest = f.dir.path().join("dest");
    std::fs::create_dir(&dest).unwrap();
    let variants = "seq-write:SEQ1M-Q1T1,seq-read:SEQ1M-Q8T1,4k-read:RND4K-Q1T1";
    let mut run = f.cmd();
    run.args(["run", dest.to_str().unwrap(), "--engine", "sync"])
        .args(["--runs", "2", "--size", "8MiB", "--duration", "0.3"])
        .args(["--tests", variants, "--label", "destbench"]);
    exits(&mut run, 0);

    let jobs = f.ok(&["export", "1", "--format", "fio"]);
    for job in [
        "[seq-write.SEQ1M-Q1T1]",
        "[seq-read.SEQ1M-Q8T1]",
        "[4k-read.RND4K-Q1T1]",
    ] {
        assert!(jobs.contains(job), "{job} missing:\n{jobs}");
    }
    let job_file = f.dir.path().join("jobs.fio");
    let result = f.dir.path().join("fio.json");
    std::fs::write(&job_file, &jobs).unwrap();
    let fio = std::process::Command::new("fio")
        .arg("--output-format=json")
        .arg(format!("--output={}", result.display()))
        .arg(&job_file)
        .output()
        .unwrap();
    assert!(
        fio.status.success(),
        "fio refused the exported job file: {}\n{jobs}",
        String::from_utf8_lossy(&fio.stderr)
    );

    let stored = f.ok(&["import-fio", result.to_str().unwrap()]);
    assert!(
        stored.contains("stored 3 result(s)") && stored.contains("as run 2"),
        "{stored}"
    );
    let cmp: serde_json::Value =
        serde_json::from_str(&f.ok(&["compare", "1", "2", "--json"])).unwrap();
    assert_eq!(
        super::support::entries(&dest),
        Vec::<String>::new(),
        "fio left its file"
    );
    let mut paired = 0;
    for group in cmp["groups"].as_array().unwrap() {
        for row in group["rows"].as_array().unwrap() {
            let fio_cell = &row["cells"][1];
            let ratio = fio_cell["ratio"].as_f64();
            assert!(
                ratio.is_some_and(|r| r.is_finite() && r > 0.0),
                "no ratio for {} {}: {row}",
                group["test"],
                row["variant"]
            );
            paired += 1;
        }
    }
    assert_eq!(paired, 3, "{cmp}");
    let text = f.ok(&["compare", "1", "2"]);
    assert!(
        text.contains("fio-3"),
        "the fio run is named by its version:\n{text}"
    );

    // What is not fio's JSON is refused in one line, exit 2, nothing stored.
    let (out, _) = exits(f.cmd().args(["import-fio", job_file.to_str().unwrap()]), 2);
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("not fio JSON") && err.lines().count() == 1,
        "{err}"
    );
    assert_eq!(f.ids().len(), 2);
}
