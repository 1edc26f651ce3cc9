//! Helpers shared by the integration tests: running the binary, temp dirs, and gating tests that
//! need root, a kernel feature or a Debian package.

use std::path::Path;
use std::process::{Command, Output};

/// The environment variable that turns every requirement skip into a failure. `.ci/run` sets it,
/// so CI cannot pass by skipping.
pub const REQUIRE_ALL_ENV: &str = "DESTBENCH_REQUIRE_ALL";

/// Skips the current test with a one-line reason, or fails it when `DESTBENCH_REQUIRE_ALL` is set.
///
/// Returns normally only when skipping is allowed; the caller then returns early.
pub fn skip(reason: &str) {
    if std::env::var_os(REQUIRE_ALL_ENV).is_some_and(|v| !v.is_empty() && v != "0") {
        panic!("requirement not met (and {REQUIRE_ALL_ENV} forbids skipping): {reason}");
    }
    eprintln!("SKIPPED: {reason}");
}

/// One `#[test]` per case of a fault matrix, named as the case and runnable alone (`cargo test
/// --test integration faults::NAME`): `NAME: NEEDS => CASE;`. NEEDS is checked first (false:
/// skipped, after `skip` said why); the cases hold `LOCK` while they run, one at a time.
#[cfg(unix)]
macro_rules! fault_cases {
    ($lock:ident; $($name:ident: $needs:expr => $case:expr;)*) => {$(
        #[test]
        fn $name() {
            let _alone = $lock.lock().unwrap_or_else(|poisoned| poisoned.into_inner());
            if $needs {
                $case;
            }
        }
    )*};
}
#[cfg(unix)]
pub(crate) use fault_cases;

/// True when running as root.
pub fn is_root() -> bool {
    destbench::is_root()
}

/// True when `program` is found on PATH.
pub fn have_program(program: &str) -> bool {
    std::env::var_os("PATH")
        .is_some_and(|paths| std::env::split_paths(&paths).any(|dir| dir.join(program).is_file()))
}

/// Checks that we are root and every program in `programs` is installed; otherwise skips (or
/// fails under CI) naming what is missing, and returns false.
pub fn require_root_and(programs: &[&str]) -> bool {
    if !is_root() {
        skip("needs root");
        return false;
    }
    let missing: Vec<&str> = programs
        .iter()
        .copied()
        .filter(|p| !have_program(p))
        .collect();
    if !missing.is_empty() {
        skip(&format!(
            "needs programs not installed: {}",
            missing.join(", ")
        ));
        return false;
    }
    true
}

/// A `Command` for the destbench binary built for these tests. Runs are stored in a history
/// database of the test build's own (never the user's); tests about the history pass their own
/// `--db` or `DESTBENCH_DB`. Its temp directory is the test's own ([`test_tmpdir`]).
pub fn destbench() -> Command {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_destbench"));
    cmd.env("NO_COLOR", "1");
    cmd.env("DESTBENCH_DB", shared_history_db());
    // No config file of the user's changes what a test runs (cli_ux tests its own).
    cmd.env("DESTBENCH_CONFIG", "");
    cmd.env("TMPDIR", test_tmpdir());
    cmd
}

/// The calling test's own temp directory, emptied when this test process first asks for it:
/// destbench makes its sets there and reports leftovers of killed runs found there, so what
/// an earlier, killed run left in /tmp cannot change a test's outcome. Named after the test
/// (libtest names each test's thread so), world-writable for the runs made as another user.
pub fn test_tmpdir() -> std::path::PathBuf {
    static MADE: std::sync::Mutex<Vec<String>> = std::sync::Mutex::new(Vec::new());
    let thread = std::thread::current();
    let name: String = thread
        .name()
        .unwrap_or("unnamed")
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || c == '_' {
                c
            } else {
                '-'
            }
        })
        .collect();
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR"))
        .join("test-tmp")
        .join(&name);
    let mut made = MADE.lock().unwrap();
    if !made.contains(&name) {
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt;
            std::fs::set_permissions(&dir, std::fs::Permissions::from_mode(0o1777)).unwrap();
        }
        made.push(name);
    }
    dir
}

/// The history database every test run of destbench stores into unless told otherwise; new
/// for each test process.
fn shared_history_db() -> &'static Path {
    static DB: std::sync::OnceLock<std::path::PathBuf> = std::sync::OnceLock::new();
    DB.get_or_init(|| {
        let path = Path::new(env!("CARGO_TARGET_TMPDIR")).join("integration-history.sqlite");
        for suffix in ["", "-wal", "-shm"] {
            let _ = std::fs::remove_file(format!("{}{suffix}", path.display()));
        }
        path
    })
}

/// A temporary directory named `prefix…` in /var/tmp: on the machine's disk, where /tmp may be
/// a tmpfs too small (or too fast) for what the test writes. Removed on drop.
pub fn disk_tempdir(prefix: &str) -> tempfile::TempDir {
    tempfile::Builder::new()
        .prefix(prefix)
        .tempdir_in("/var/tmp")
        .unwrap()
}

/// Names of the entries directly inside `dir`, sorted.
pub fn entries(dir: &Path) -> Vec<String> {
    let mut names: Vec<String> = std::fs::read_dir(dir)
        .map(|rd| {
            rd.filter_map(|e| e.ok())
                .map(|e| e.file_name().to_string_lossy().into_owned())
                .collect()
        })
        .unwrap_or_default();
    names.sort();
    names
}

/// destbench run through `setpriv` with these options (another user, fewer capabilities).
pub fn destbench_setpriv(options: &[&str]) -> Command {
    let mut cmd = Command::new("setpriv");
    cmd.args(options)
        .arg(env!("CARGO_BIN_EXE_destbench"))
        .env("NO_COLOR", "1")
        .env("DESTBENCH_CONFIG", "")
        .env("TMPDIR", test_tmpdir());
    cmd
}

/// Runs `cmd` and checks its exit code (stderr in the message); its output and stderr.
pub fn exits(cmd: &mut Command, code: i32) -> (Output, String) {
    let output = cmd.output().expect("run destbench");
    let stderr = String::from_utf8_lossy(&output.stderr).into_owned();
    assert_eq!(output.status.code(), Some(code), "{cmd:?}: {stderr}");
    (output, stderr)
}

/// Asserts that the command of `output` succeeded, its stderr in the message.
pub fn assert_success(output: &Output) {
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
}

/// Runs destbench with `args` and parses its stdout as the `--json` document.
pub fn run_json(args: &[&str]) -> serde_json::Value {
    let output = destbench().args(args).output().expect("run destbench");
    assert!(
        output.status.success(),
        "destbench {args:?} failed: {}",
        String::from_utf8_lossy(&output.stderr)
    );
    serde_json::from_slice(&output.stdout).unwrap_or_else(|e| {
        panic!(
            "stdout is not one JSON document ({e}): {}",
            String::from_utf8_lossy(&output.stdout)
        )
    })
}

/// `destbench run DESTINATION --json FLAGS...`, the flags written as on a command line
/// (split at spaces): the parsed document.
pub fn run_on(destination: &Path, flags: &str) -> serde_json::Value {
    let destination = destination.to_str().expect("a UTF-8 path");
    let mut args = vec!["run", destination, "--json"];
    args.extend(flags.split_whitespace());
    run_json(&args)
}

/// `key` of each entry of the JSON list `list`, read by `read` (`Value::as_str`, `as_i64`, ...).
pub fn each<'a, T>(
    list: &'a serde_json::Value,
    key: &str,
    read: impl Fn(&'a serde_json::Value) -> Option<T>,
) -> Vec<T> {
    let entries = list
        .as_array()
        .unwrap_or_else(|| panic!("not a list: {list}"));
    entries
        .iter()
        .map(|entry| read(&entry[key]).unwrap_or_else(|| panic!("{key} of {entry}")))
        .collect()
}

/// "test variant" of each entry of a document's `results` or `failures` list.
pub fn test_variants(list: &serde_json::Value) -> Vec<String> {
    list.as_array()
        .expect("a list of results")
        .iter()
        .map(|r| {
            format!(
                "{} {}",
                r["test"].as_str().unwrap(),
                r["variant"].as_str().unwrap()
            )
        })
        .collect()
}

/// A JSON number, or a panic naming what it was instead.
pub fn num(v: &serde_json::Value) -> f64 {
    v.as_f64().unwrap_or_else(|| panic!("not a number: {v}"))
}

/// The result object for `test` / `variant` in a run document.
pub fn result<'a>(doc: &'a serde_json::Value, test: &str, variant: &str) -> &'a serde_json::Value {
    doc["results"]
        .as_array()
        .expect("results array")
        .iter()
        .find(|r| r["test"] == test && r["variant"] == variant)
        .unwrap_or_else(|| panic!("no result for {test} {variant}"))
}

/// An ext4 filesystem in an image file on the machine's own disk, loop-mounted; unmounted and
/// removed on drop (also when the test panics).
pub struct LoopExt4 {
    dir: tempfile::TempDir,
}

impl LoopExt4 {
    /// None (after `skip`) without root or the tools.
    pub fn new(size_mib: u64) -> Option<LoopExt4> {
        if !require_root_and(&["mkfs.ext4", "mount", "umount"]) {
            return None;
        }
        let dir = disk_tempdir("destbench-ext4-");
        let image = dir.path().join("image");
        let mnt = dir.path().join("mnt");
        std::fs::create_dir(&mnt).unwrap();
        std::fs::File::create(&image)
            .unwrap()
            .set_len(size_mib << 20)
            .unwrap();
        let ok = |cmd: &mut Command| cmd.status().map(|s| s.success()).unwrap_or(false);
        assert!(
            ok(Command::new("mkfs.ext4").args(["-q", "-F"]).arg(&image)),
            "mkfs.ext4 failed"
        );
        assert!(
            ok(Command::new("mount")
                .args(["-o", "loop"])
                .arg(&image)
                .arg(&mnt)),
            "mount failed"
        );
        Some(LoopExt4 { dir })
    }

    pub fn mount(&self) -> std::path::PathBuf {
        self.dir.path().join("mnt")
    }
}

impl Drop for LoopExt4 {
    fn drop(&mut self) {
        let _ = Command::new("umount").arg(self.mount()).status();
    }
}

/// Whether this system confines the programs a run starts (Linux: Landlock, whose ABI version
/// answers; macOS: the sandbox's launcher); skips (or fails under CI) saying so where it does
/// not.
#[cfg(unix)]
pub fn confinement_or_skip() -> bool {
    #[cfg(target_os = "linux")]
    // SAFETY: landlock_create_ruleset(NULL, 0, LANDLOCK_CREATE_RULESET_VERSION) only returns
    // the ABI version or -1; it touches no memory.
    let have = unsafe {
        libc::syscall(
            libc::SYS_landlock_create_ruleset,
            std::ptr::null::<u8>(),
            0usize,
            1u32,
        )
    } >= 1;
    #[cfg(not(target_os = "linux"))]
    let have = Path::new("/usr/bin/sandbox-exec").is_file();
    if !have {
        skip("this system offers no confinement (Landlock, the sandbox)");
    }
    have
}

/// The words a confined program's refusal names its confinement by, on this system.
#[cfg(unix)]
pub const CONFINED_BY: &str = if cfg!(target_os = "linux") {
    "Landlock"
} else {
    "sandbox"
};
