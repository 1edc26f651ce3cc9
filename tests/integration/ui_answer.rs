//! The page's answer, from outside: after a run, `/api/answer` starts with the time of a backup
//! and its "how long" table (rows your data, 100 GB, 1 TB; every cell a duration), for the home
//! volume by default or for the folder typed in "What do you back up?", which is surveyed (names
//! and sizes) as `run --data` does, never copied; a folder the command line would refuse is
//! refused in one line. Runs use
//! the null engine: the page's behaviour is under test, not a disk.

use std::path::Path;
use std::time::Duration;

use crate::ui::Ui;

fn encode(text: &str) -> String {
    form_urlencoded::byte_serialize(text.as_bytes()).collect()
}

/// A run of `dest` with `profile`, asked with `data` in "What do you back up?"; its status
/// and body.
fn ask(ui: &Ui, dest: &Path, profile: &str, data: &str) -> (u16, String) {
    let path = encode(dest.to_str().unwrap());
    let form = format!("path={path}&profile={profile}&data={}", encode(data));
    ui.post("/api/run", &form)
}

/// The answer of the run `ask` started, once stored.
fn answer_of_run(ui: &Ui) -> String {
    let done = ui.wait_done(Duration::from_secs(120));
    assert_eq!(done["outcome"]["result"], "stored", "{done}");
    let id = done["outcome"]["run_id"].as_i64().unwrap();
    let (code, html) = ui.get(&format!("/api/answer?id={id}"));
    assert_eq!(code, 200, "{html}");
    html
}

/// The text between `<p class="time">` and its end.
fn time_sentence(html: &str) -> &str {
    let start = html.find("<p class=\"time\">").expect(html) + "<p class=\"time\">".len();
    &html[start..start + html[start..].find("</p>").unwrap()]
}

/// Each `<td data-seconds=…>` cell's text, checked to be a duration ("about 2 h 10 min",
/// "at least 4.5 min"), and the row labels.
fn how_long(html: &str) -> (Vec<String>, Vec<String>) {
    let table = &html[html.find("<table class=\"how-long\"").expect(html)..];
    let table = &table[..table.find("</table>").unwrap()];
    let between = |open: &str| -> Vec<String> {
        table
            .split(open)
            .skip(1)
            .map(|rest| rest[rest.find('>').unwrap() + 1..rest.find("</").unwrap()].into())
            .collect()
    };
    let cells = between("<td data-seconds=");
    assert!(!cells.is_empty(), "{table}");
    for cell in &cells {
        assert!(is_duration(cell), "not a duration: {cell:?} in {table}");
    }
    (between("<th scope=\"row\""), cells)
}

/// "about 38 s", "at least 4.5 min", "about 2 h 10 min": `units::human_duration` after a word
/// saying how sure it is.
fn is_duration(cell: &str) -> bool {
    let Some(time) = ["about ", "at least "]
        .iter()
        .find_map(|sure| cell.strip_prefix(sure))
    else {
        return false;
    };
    let digits = |s: &str| !s.is_empty() && s.bytes().all(|b| b.is_ascii_digit());
    let number = |s: &str| match s.split_once('.') {
        Some((whole, tenths)) => digits(whole) && tenths.len() == 1 && digits(tenths),
        None => digits(s),
    };
    match time.split(' ').collect::<Vec<_>>()[..] {
        [n, "s" | "min"] => number(n),
        [h, "h", m, "min"] => digits(h) && m.len() == 2 && digits(m),
        _ => false,
    }
}

#[test]
fn a_duration_is_told_from_anything_else() {
    for good in [
        "about 38 s",
        "at least 4.5 min",
        "about 2 h 10 min",
        "about 0.4 s",
    ] {
        assert!(is_duration(good), "{good}");
    }
    for bad in [
        "38 s",
        "about 2 h",
        "about 1e3 s",
        "about NaN s",
        "at most 2 min",
        "about 2 h 5 min",
    ] {
        assert!(!is_duration(bad), "{bad}");
    }
}

#[test]
fn by_default_the_answer_is_the_home_volumes_time_then_its_table() {
    let dir = tempfile::tempdir().unwrap();
    let ui = Ui::start(dir.path(), "null");
    let (code, body) = ask(&ui, dir.path(), "quick", "  ");
    assert_eq!(code, 202, "{body}");
    let html = answer_of_run(&ui);
    let first = time_sentence(&html);
    assert!(
        first.starts_with("A first") && first.contains("the whole home volume"),
        "{first}"
    );
    let (rows, cells) = how_long(&html);
    assert_eq!(rows.len(), 3, "{rows:?}");
    assert!(rows[0].starts_with("your data ("), "{rows:?}");
    assert_eq!(rows[1..], ["100 GB", "1 TB"]);
    assert_eq!(cells.len() % 3, 0, "a cell per tool and row: {cells:?}");
    let order = [
        "<p class=\"time\">",
        "class=\"how-long\"",
        "data-tile=\"verdict\"",
    ];
    let at: Vec<usize> = order.iter().map(|o| html.find(o).expect(o)).collect();
    assert!(
        at.is_sorted(),
        "the time, its table, then the verdict: {html}"
    );
}

#[test]
fn a_folder_to_back_up_is_surveyed_and_answered_for_with_any_profile() {
    let dir = tempfile::tempdir().unwrap();
    let (source, dest) = (dir.path().join("photos"), dir.path().join("dest"));
    std::fs::create_dir_all(source.join("2026")).unwrap();
    std::fs::create_dir(&dest).unwrap();
    for i in 0..25 {
        std::fs::write(source.join(format!("2026/p{i}.jpg")), vec![7u8; 40_000]).unwrap();
    }
    let ui = Ui::start(dir.path(), "null");
    // The quick profile copies no file set: the folder is surveyed all the same.
    let (code, body) = ask(&ui, &dest, "quick", source.to_str().unwrap());
    assert_eq!(code, 202, "{body}");
    let html = answer_of_run(&ui);
    let first = time_sentence(&html);
    let folder = source.canonicalize().unwrap();
    assert!(
        first.contains(&format!("(1.0 MB in 25 files, {})", folder.display())),
        "{first}"
    );
    let (rows, _) = how_long(&html);
    assert_eq!(rows[0], "your data (1.0 MB)", "{rows:?}");
    assert_eq!(
        crate::support::entries(&source),
        ["2026"],
        "the folder is read, never changed"
    );
}

#[test]
fn a_folder_the_command_line_refuses_is_refused_in_one_line() {
    let dir = tempfile::tempdir().unwrap();
    let ui = Ui::start(dir.path(), "null");
    let missing = dir.path().join("missing");
    let file = dir.path().join("a-file");
    std::fs::write(&file, "").unwrap();
    for (source, ends) in [
        (
            "Documents",
            "give the folder's full path, e.g. /home/me/Documents",
        ),
        (missing.to_str().unwrap(), "does not exist"),
        (file.to_str().unwrap(), "is not a directory"),
    ] {
        let (code, body) = ask(&ui, dir.path(), "backup", source);
        assert_eq!(code, 400, "{source}: {body}");
        assert!(
            body.contains(source) && body.ends_with(ends) && !body.contains('\n'),
            "{source}: {body}"
        );
    }
    assert_eq!(
        ui.status()["state"],
        "idle",
        "nothing refused started a run"
    );
}
