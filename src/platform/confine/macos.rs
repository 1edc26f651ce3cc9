//! macOS: the sandbox, as build systems (Bazel's darwin-sandbox) and browsers confine their
//! children. The program is started by `/usr/bin/sandbox-exec` with a profile that allows
//! everything but writing, then writing beneath each scratch directory's real path (which the
//! sandbox matches, symlinks resolved: `/tmp` is `/private/tmp`) and to the null and terminal
//! devices. The paths go in as parameters (`-D WRITABLE0=…`), never into the profile's text,
//! so no path needs quoting.

use std::ffi::OsString;
#[cfg(target_os = "macos")]
use std::{ffi::OsStr, io, process::Command};

#[cfg(target_os = "macos")]
use super::Writable;

/// The sandbox's launcher.
#[cfg(target_os = "macos")]
const SANDBOX_EXEC: &str = "/usr/bin/sandbox-exec";

/// The profile and its parameters, as `sandbox-exec` takes them.
pub struct Rules {
    args: Vec<OsString>,
}

/// `sandbox-exec`'s arguments before the program: each real path as a parameter, and the
/// profile that allows writing beneath them only.
fn rules_for(real_paths: &[OsString]) -> Rules {
    let mut args = Vec::new();
    let mut beneath = String::new();
    for (k, path) in real_paths.iter().enumerate() {
        let mut define = OsString::from(format!("WRITABLE{k}="));
        define.push(path);
        args.extend([OsString::from("-D"), define]);
        beneath.push_str(&format!(" (subpath (param \"WRITABLE{k}\"))"));
    }
    let profile = format!(
        "(version 1)\n(allow default)\n(deny file-write*)\n(allow file-write*{beneath})\n\
         (allow file-write-data (literal \"/dev/null\") (literal \"/dev/tty\") (literal \"/dev/dtracehelper\"))\n"
    );
    args.extend([OsString::from("-p"), OsString::from(profile)]);
    Rules { args }
}

/// The rules for `writable`, and what they are in words.
#[cfg(target_os = "macos")]
pub fn confine(writable: &[Writable<'_>]) -> Result<(Rules, String), String> {
    if !std::path::Path::new(SANDBOX_EXEC).is_file() {
        return Err(format!("{SANDBOX_EXEC} is missing"));
    }
    let real = writable
        .iter()
        .map(|w| {
            // F_GETPATH: where the open directory is now, links resolved.
            rustix::fs::getpath(w.dir)
                .map(|p| std::os::unix::ffi::OsStringExt::from_vec(p.into_bytes()))
                .map_err(|e| format!("the real path of {}: {e}", w.path.display()))
        })
        .collect::<Result<Vec<OsString>, String>>()?;
    Ok((
        rules_for(&real),
        "the macOS sandbox (sandbox-exec)".to_string(),
    ))
}

/// `program`, started by the sandbox with `rules`.
#[cfg(target_os = "macos")]
pub fn command(rules: &Rules, program: &OsStr) -> io::Result<Command> {
    let mut command = Command::new(SANDBOX_EXEC);
    command.args(&rules.args).arg(program);
    Ok(command)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_path_is_a_parameter_and_the_profile_denies_every_other_write() {
        let paths = [
            OsString::from("/private/var/folders/x/T/.destbench-1"),
            OsString::from("/Volumes/Backup \"quoted\" (2)/.destbench-2"),
        ];
        let rules = rules_for(&paths);
        let args: Vec<String> = rules
            .args
            .iter()
            .map(|a| a.to_string_lossy().into_owned())
            .collect();
        assert_eq!(
            args[0..2],
            ["-D", "WRITABLE0=/private/var/folders/x/T/.destbench-1"]
        );
        assert_eq!(
            args[2..4],
            [
                "-D",
                "WRITABLE1=/Volumes/Backup \"quoted\" (2)/.destbench-2"
            ]
        );
        assert_eq!(args[4], "-p");
        let profile = &args[5];
        assert_eq!(args.len(), 6);
        assert!(
            !profile.contains("Volumes"),
            "no path in the profile's text"
        );
        let deny = profile.find("(deny file-write*)").unwrap();
        let allow = profile
            .find("(allow file-write* (subpath (param \"WRITABLE0\")) (subpath (param \"WRITABLE1\")))")
            .unwrap();
        assert!(
            deny < allow,
            "the later rule wins: allowed beneath, denied elsewhere"
        );
        assert!(profile.starts_with("(version 1)\n(allow default)\n"));
        assert_eq!(profile.matches('(').count(), profile.matches(')').count());
    }
}
