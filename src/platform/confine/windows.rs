//! Windows: the low integrity level, as Internet Explorer's protected mode and Chrome's sandbox
//! use it. Each scratch directory is labelled Low, the label inherited by everything made in it
//! afterwards, and the program runs with a Low token. Windows' mandatory policy (no write up)
//! then refuses that program every write to an object of a higher level: the user's files,
//! which are Medium when unlabelled, a junction's target among them, since the check is on the
//! object reached, not on the path.
//!
//! std's `Command` cannot start a process with a token of our choosing, so the program is
//! started through destbench itself: `destbench.exe __destbench_low_integrity_child PROGRAM
//! ARGS…` ([`low_integrity_child`], called first thing in `destbench::main`) lowers its own
//! token to Low and starts PROGRAM, which inherits that token, with the stdio, environment and
//! directory it was given, then exits with PROGRAM's exit code.

use std::ffi::{OsStr, OsString};
use std::io;
use std::os::windows::ffi::OsStrExt;
use std::os::windows::fs::OpenOptionsExt;
use std::os::windows::io::{AsRawHandle, FromRawHandle, OwnedHandle, RawHandle};
use std::process::{Child, Command};

use windows_sys::Win32::Foundation::{HLOCAL, LocalFree};
use windows_sys::Win32::Security::Authorization::{
    ConvertSecurityDescriptorToStringSecurityDescriptorW,
    ConvertStringSecurityDescriptorToSecurityDescriptorW, GetSecurityInfo, SDDL_REVISION_1,
    SE_FILE_OBJECT,
};
use windows_sys::Win32::Security::{
    CreateWellKnownSid, GetSidSubAuthority, GetSidSubAuthorityCount, GetTokenInformation,
    LABEL_SECURITY_INFORMATION, PSECURITY_DESCRIPTOR, SECURITY_MAX_SID_SIZE, SID_AND_ATTRIBUTES,
    SetKernelObjectSecurity, SetTokenInformation, TOKEN_ADJUST_DEFAULT, TOKEN_MANDATORY_LABEL,
    TOKEN_QUERY, TokenIntegrityLevel, WinLowLabelSid,
};
use windows_sys::Win32::Storage::FileSystem::{
    FILE_FLAG_BACKUP_SEMANTICS, FILE_FLAG_OPEN_REPARSE_POINT, FILE_READ_ATTRIBUTES,
    FILE_SHARE_DELETE, FILE_SHARE_READ, FILE_SHARE_WRITE, READ_CONTROL, ReOpenFile, WRITE_OWNER,
};
use windows_sys::Win32::System::JobObjects::{
    AssignProcessToJobObject, CreateJobObjectW, JOB_OBJECT_LIMIT_KILL_ON_JOB_CLOSE,
    JOBOBJECT_EXTENDED_LIMIT_INFORMATION, JobObjectExtendedLimitInformation,
    SetInformationJobObject,
};
use windows_sys::Win32::System::Threading::{GetCurrentProcess, OpenProcessToken};

use super::Writable;
use crate::platform::HandleRef;

/// The first argument that makes destbench the launcher of a Low program, not itself.
pub const CHILD_MARKER: &str = "__destbench_low_integrity_child";

/// The label each scratch directory gets: Low (`LW`), no write up (`NW`), inherited by the
/// files (`OI`) and directories (`CI`) made in it.
const LOW_LABEL_SDDL: &str = "S:(ML;OICI;NW;;;LW)";

/// The label's ACE, as Windows writes it back when asked for the directory's label.
const LOW_LABEL_ACE: &str = "(ML;OICI;NW;;;LW)";

/// The relative identifier of the Low integrity SID, S-1-16-4096.
const LOW_RID: u32 = 0x1000;

/// `SE_GROUP_INTEGRITY`: the SID in a token's integrity label is its level.
const SE_GROUP_INTEGRITY: u32 = 0x20;

/// The launcher's exit code when it could not start the program (as shells report it).
const LAUNCH_FAILED: i32 = 126;

/// The label set on the scratch directories; the program is started Low.
pub struct Rules {
    _labelled: (),
}

/// Labels each of `writable` Low (its contents made from now on inherit the label), and says
/// what confines in words. Contents already there keep their level: the caller confines the
/// scratch before anything is made in it.
pub fn confine(writable: &[Writable<'_>]) -> Result<(Rules, String), String> {
    let label = LocalBox::security_descriptor(LOW_LABEL_SDDL)
        .map_err(|e| format!("building the low integrity label: {e}"))?;
    for w in writable {
        if on_network(w.dir).map_err(|e| format!("{}: {e}", w.path.display()))? {
            return Err(format!(
                "{} is on a network share, whose server checks its writes, not this system's integrity levels",
                w.path.display()
            ));
        }
        label_low(w, &label)
            .map_err(|e| format!("labelling {} low integrity: {e}", w.path.display()))?;
    }
    Ok((
        Rules { _labelled: () },
        "Windows' low integrity level (the scratch labelled low, the program started low)"
            .to_string(),
    ))
}

/// `program` started Low, through destbench itself (see the module's comment); the caller
/// adds the arguments, environment and stdio, all passed on to `program`. The caller's
/// `Child` is the launcher, which only waits: the CPU time it reports is the launcher's, not
/// the program's. Ending the launcher ends the program and what it left running (its job
/// closes).
pub fn command(_rules: &Rules, program: &OsStr) -> io::Result<Command> {
    let mut command = Command::new(std::env::current_exe()?);
    command.args(launcher_args(program));
    Ok(command)
}

/// The launcher's arguments before the caller's: the marker, then the program.
fn launcher_args(program: &OsStr) -> [&OsStr; 2] {
    [OsStr::new(CHILD_MARKER), program]
}

/// When `args` (this process's, its own name first) are a launcher's: lowers this process to
/// Low, runs the program they name with the rest, and gives its exit code to exit with (or
/// [`LAUNCH_FAILED`], having said why on stderr). None when they are not: destbench runs as
/// itself. The program is never started unless this process is Low.
pub fn low_integrity_child(args: &[OsString]) -> Option<i32> {
    let launch = launched(args)?;
    Some(
        match launch.and_then(|(program, rest)| run_low(program, rest)) {
            Ok(code) => code,
            Err(why) => {
                eprintln!("destbench: {why}");
                LAUNCH_FAILED
            }
        },
    )
}

/// The program and its arguments when `args` start with the marker; None when they do not.
fn launched(args: &[OsString]) -> Option<Result<(&OsStr, &[OsString]), String>> {
    match args {
        [_, marker, rest @ ..] if marker == CHILD_MARKER => Some(match rest {
            [program, args @ ..] => Ok((program.as_os_str(), args)),
            [] => Err(format!("{CHILD_MARKER} needs the program to run")),
        }),
        _ => None,
    }
}

/// Lowers this process, then runs `program` with `args` (it inherits the Low token) and
/// waits for it: its exit code, all 32 bits of it.
fn run_low(program: &OsStr, args: &[OsString]) -> Result<i32, String> {
    lower_own_integrity().map_err(|e| format!("lowering to low integrity: {e}"))?;
    match own_integrity_rid() {
        Ok(LOW_RID) => {}
        Ok(rid) => return Err(format!("still at integrity level {rid:#x} after lowering")),
        Err(e) => return Err(format!("reading the integrity level: {e}")),
    }
    let show = || program.to_string_lossy().into_owned();
    let mut child = Command::new(program)
        .args(args)
        .spawn()
        .map_err(|e| format!("starting {}: {e}", show()))?;
    let _job = kill_with_launcher(&child);
    let status = child
        .wait()
        .map_err(|e| format!("waiting for {}: {e}", show()))?;
    Ok(status.code().unwrap_or(LAUNCH_FAILED))
}

/// Sets this process's own token to the Low integrity level: lowering needs no privilege.
fn lower_own_integrity() -> io::Result<()> {
    let token = own_token(TOKEN_ADJUST_DEFAULT | TOKEN_QUERY)?;
    // u32s: a SID is 4-byte aligned.
    let mut sid = [0u32; SECURITY_MAX_SID_SIZE as usize / 4];
    let mut sid_len = SECURITY_MAX_SID_SIZE;
    // SAFETY: no domain SID (the Low label has none), a buffer of SECURITY_MAX_SID_SIZE bytes
    // and its size, which the call updates.
    if unsafe {
        CreateWellKnownSid(
            WinLowLabelSid,
            std::ptr::null_mut(),
            sid.as_mut_ptr().cast(),
            &mut sid_len,
        )
    } == 0
    {
        return Err(io::Error::last_os_error());
    }
    let label = TOKEN_MANDATORY_LABEL {
        Label: SID_AND_ATTRIBUTES {
            Sid: sid.as_mut_ptr().cast(),
            Attributes: SE_GROUP_INTEGRITY,
        },
    };
    let size = size_of::<TOKEN_MANDATORY_LABEL>() as u32 + sid_len;
    // SAFETY: the token is open with TOKEN_ADJUST_DEFAULT; `label` points to `sid`, both live
    // for the call, which copies them.
    if unsafe {
        SetTokenInformation(
            token.as_raw_handle(),
            TokenIntegrityLevel,
            (&raw const label).cast(),
            size,
        )
    } == 0
    {
        return Err(io::Error::last_os_error());
    }
    Ok(())
}

/// The relative identifier of this process's integrity level (0x2000 Medium, 0x1000 Low).
fn own_integrity_rid() -> io::Result<u32> {
    let token = own_token(TOKEN_QUERY)?;
    // u64s: the label holds a pointer, then the SID it points to.
    let mut buffer = [0u64; 16];
    let mut needed = 0u32;
    // SAFETY: a token open with TOKEN_QUERY, a buffer of the size given (enough for a label
    // and any SID), and a u32 for the size used.
    if unsafe {
        GetTokenInformation(
            token.as_raw_handle(),
            TokenIntegrityLevel,
            buffer.as_mut_ptr().cast(),
            size_of_val(&buffer) as u32,
            &mut needed,
        )
    } == 0
    {
        return Err(io::Error::last_os_error());
    }
    // SAFETY: the call filled the buffer with a TOKEN_MANDATORY_LABEL whose SID lies within
    // it; the SID's last sub-authority is its level, and a label's SID has one at least.
    unsafe {
        let label = &*buffer.as_ptr().cast::<TOKEN_MANDATORY_LABEL>();
        let count = *GetSidSubAuthorityCount(label.Label.Sid);
        if count == 0 {
            return Err(io::Error::other("the integrity label's SID has no level"));
        }
        Ok(*GetSidSubAuthority(label.Label.Sid, u32::from(count) - 1))
    }
}

/// This process's token, open for `access`.
fn own_token(access: u32) -> io::Result<OwnedHandle> {
    let mut token = std::ptr::null_mut();
    // SAFETY: the current process's pseudo-handle and a handle to fill.
    if unsafe { OpenProcessToken(GetCurrentProcess(), access, &mut token) } == 0 {
        return Err(io::Error::last_os_error());
    }
    // SAFETY: a handle just opened, owned by nothing else.
    Ok(unsafe { OwnedHandle::from_raw_handle(token) })
}

/// A job that ends `child` when this launcher ends (its last handle closes with the process):
/// the caller's job, which ends the launcher, may not hold a program started before the
/// launcher joined it. None if the system refuses it (before Windows 8 a process in a job
/// cannot join another): the caller's job holds the program then, as it joined after.
fn kill_with_launcher(child: &Child) -> Option<OwnedHandle> {
    // SAFETY: no security attributes and no name: a new anonymous job, or null.
    let handle = unsafe { CreateJobObjectW(std::ptr::null(), std::ptr::null()) };
    if handle.is_null() {
        return None;
    }
    // SAFETY: a handle just created, owned by nothing else.
    let job = unsafe { OwnedHandle::from_raw_handle(handle) };
    // SAFETY: plain data; zero is "no limit" for every field left alone.
    let mut limits: JOBOBJECT_EXTENDED_LIMIT_INFORMATION = unsafe { std::mem::zeroed() };
    limits.BasicLimitInformation.LimitFlags = JOB_OBJECT_LIMIT_KILL_ON_JOB_CLOSE;
    // SAFETY: the job's handle and a structure of the class named, with its size.
    let limited = unsafe {
        SetInformationJobObject(
            job.as_raw_handle(),
            JobObjectExtendedLimitInformation,
            (&raw const limits).cast(),
            size_of_val(&limits) as u32,
        )
    };
    // SAFETY: the job's handle and the child's process handle, both open for the call.
    let joined = unsafe { AssignProcessToJobObject(job.as_raw_handle(), child.as_raw_handle()) };
    (limited != 0 && joined != 0).then_some(job)
}

/// Whether the open `dir` is on a network filesystem (its volume's device is remote).
fn on_network(dir: HandleRef<'_>) -> Result<bool, String> {
    use windows_sys::Wdk::Storage::FileSystem::{
        FileFsDeviceInformation, NtQueryVolumeInformationFile,
    };
    use windows_sys::Wdk::System::SystemServices::{
        FILE_FS_DEVICE_INFORMATION, FILE_REMOTE_DEVICE,
    };
    use windows_sys::Win32::System::IO::IO_STATUS_BLOCK;
    const FILE_DEVICE_NETWORK_FILE_SYSTEM: u32 = 0x14;
    let mut info = FILE_FS_DEVICE_INFORMATION::default();
    // SAFETY: plain data that the call fills.
    let mut status_block: IO_STATUS_BLOCK = unsafe { std::mem::zeroed() };
    // SAFETY: an open handle lent for the call, and structures of the class named, with the
    // size of the one it fills.
    let status = unsafe {
        NtQueryVolumeInformationFile(
            dir.as_raw_handle(),
            &mut status_block,
            (&raw mut info).cast(),
            size_of_val(&info) as u32,
            FileFsDeviceInformation,
        )
    };
    if status < 0 {
        return Err(format!("asking its volume's device: NTSTATUS {status:#x}"));
    }
    Ok(info.Characteristics & FILE_REMOTE_DEVICE != 0
        || info.DeviceType == FILE_DEVICE_NETWORK_FILE_SYSTEM)
}

/// Labels the directory of `w` with `label`, through a handle of its own that may set a label
/// (`WRITE_OWNER`), and checks the label is there. The label is set on the directory only,
/// never spread to what is in it, so no link inside leads it elsewhere.
fn label_low(w: &Writable<'_>, label: &LocalBox) -> Result<(), String> {
    let dir = relabeller(w)?;
    // SAFETY: a handle open with WRITE_OWNER and a security descriptor holding a label SACL.
    if unsafe { SetKernelObjectSecurity(dir.as_raw_handle(), LABEL_SECURITY_INFORMATION, label.0) }
        == 0
    {
        return Err(io::Error::last_os_error().to_string());
    }
    let now = label_of(&dir).map_err(|e| format!("reading the label back: {e}"))?;
    if !is_low_label(&now) {
        return Err(format!("the label did not take (it reads {now:?})"));
    }
    Ok(())
}

/// A handle of `w`'s directory that may set its label: the open handle reopened with that
/// access, or else the path opened again (never through a link at its end) and checked to be
/// the same directory as the handle.
fn relabeller(w: &Writable<'_>) -> Result<OwnedHandle, String> {
    const ACCESS: u32 = WRITE_OWNER | READ_CONTROL | FILE_READ_ATTRIBUTES;
    const FLAGS: u32 = FILE_FLAG_BACKUP_SEMANTICS | FILE_FLAG_OPEN_REPARSE_POINT;
    // SAFETY: an open handle lent for the call; the call returns a new handle or
    // INVALID_HANDLE_VALUE.
    let reopened = unsafe {
        ReOpenFile(
            w.dir.as_raw_handle(),
            ACCESS,
            FILE_SHARE_READ | FILE_SHARE_WRITE | FILE_SHARE_DELETE,
            FLAGS,
        )
    };
    if reopened != windows_sys::Win32::Foundation::INVALID_HANDLE_VALUE && !reopened.is_null() {
        // SAFETY: a handle just opened, owned by nothing else.
        return Ok(unsafe { OwnedHandle::from_raw_handle(reopened) });
    }
    let opened = std::fs::OpenOptions::new()
        .access_mode(ACCESS)
        .custom_flags(FLAGS)
        .open(w.path)
        .map_err(|e| format!("opening it to set its label: {e}"))?;
    let opened = OwnedHandle::from(opened);
    if !same_object(w.dir, opened.as_raw_handle())? {
        return Err("it was replaced since it was opened".to_string());
    }
    Ok(opened)
}

/// Whether `a` and `b` are handles of one file or directory: its volume and file index.
fn same_object(a: HandleRef<'_>, b: RawHandle) -> Result<bool, String> {
    // SAFETY: `b` is a handle open for the caller's whole call, which outlives this borrow.
    let b = unsafe { std::os::windows::io::BorrowedHandle::borrow_raw(b) };
    let id = |h| {
        crate::platform::stat(h)
            .map(|s| (s.device, s.inode))
            .map_err(|e| format!("identifying it: {e}"))
    };
    Ok(id(a)? == id(b)?)
}

/// The mandatory label of the open `dir`, as SDDL ("S:(ML;OICI;NW;;;LW)"; "" when it has none).
fn label_of(dir: &OwnedHandle) -> io::Result<String> {
    let mut descriptor: PSECURITY_DESCRIPTOR = std::ptr::null_mut();
    // SAFETY: a handle open with READ_CONTROL; only the descriptor is asked for, which the
    // call allocates with LocalAlloc (freed by LocalBox).
    let error = unsafe {
        GetSecurityInfo(
            dir.as_raw_handle(),
            SE_FILE_OBJECT,
            LABEL_SECURITY_INFORMATION,
            std::ptr::null_mut(),
            std::ptr::null_mut(),
            std::ptr::null_mut(),
            std::ptr::null_mut(),
            &mut descriptor,
        )
    };
    if error != 0 {
        return Err(io::Error::from_raw_os_error(error as i32));
    }
    let descriptor = LocalBox(descriptor);
    let mut text: *mut u16 = std::ptr::null_mut();
    // SAFETY: a descriptor the system made; the string is allocated with LocalAlloc.
    if unsafe {
        ConvertSecurityDescriptorToStringSecurityDescriptorW(
            descriptor.0,
            SDDL_REVISION_1,
            LABEL_SECURITY_INFORMATION,
            &mut text,
            std::ptr::null_mut(),
        )
    } == 0
    {
        return Err(io::Error::last_os_error());
    }
    let text = LocalBox(text.cast());
    // SAFETY: the call wrote a NUL-terminated wide string there.
    Ok(unsafe { wide_to_string(text.0.cast()) })
}

/// Whether `sddl` (a label, as Windows writes it) holds the Low, no-write-up, inherited label.
fn is_low_label(sddl: &str) -> bool {
    sddl.strip_prefix("S:")
        .is_some_and(|aces| aces.contains(LOW_LABEL_ACE))
}

/// The NUL-terminated wide string at `p`, lossily.
///
/// # Safety
/// `p` points to a NUL-terminated wide string.
unsafe fn wide_to_string(p: *const u16) -> String {
    let mut len = 0;
    // SAFETY: the string is NUL-terminated (the caller's promise): no read passes the NUL.
    while unsafe { *p.add(len) } != 0 {
        len += 1;
    }
    // SAFETY: `len` elements before the NUL, all read above.
    String::from_utf16_lossy(unsafe { std::slice::from_raw_parts(p, len) })
}

/// Memory the system allocated with LocalAlloc (a security descriptor, a string), freed on drop.
struct LocalBox(*mut core::ffi::c_void);

impl LocalBox {
    /// The self-relative security descriptor `sddl` describes.
    fn security_descriptor(sddl: &str) -> io::Result<LocalBox> {
        let text: Vec<u16> = OsStr::new(sddl).encode_wide().chain(Some(0)).collect();
        let mut descriptor: PSECURITY_DESCRIPTOR = std::ptr::null_mut();
        // SAFETY: a NUL-terminated wide string and a pointer to fill; the size is not asked.
        if unsafe {
            ConvertStringSecurityDescriptorToSecurityDescriptorW(
                text.as_ptr(),
                SDDL_REVISION_1,
                &mut descriptor,
                std::ptr::null_mut(),
            )
        } == 0
        {
            return Err(io::Error::last_os_error());
        }
        Ok(LocalBox(descriptor))
    }
}

impl Drop for LocalBox {
    fn drop(&mut self) {
        if !self.0.is_null() {
            // SAFETY: memory the system allocated with LocalAlloc, freed once, here.
            unsafe { LocalFree(self.0 as HLOCAL) };
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn os(args: &[&str]) -> Vec<OsString> {
        args.iter().map(OsString::from).collect()
    }

    #[test]
    fn the_launcher_comes_first_then_the_program_then_its_arguments() {
        let rules = Rules { _labelled: () };
        let mut command = command(&rules, OsStr::new(r"C:\Program Files\rsync\rsync.exe")).unwrap();
        command.args(["-a", r"E:\src\", r"E:\destbench-1\dst"]);
        assert_eq!(command.get_program(), std::env::current_exe().unwrap());
        let args: Vec<&OsStr> = command.get_args().collect();
        assert_eq!(
            args,
            [
                CHILD_MARKER,
                r"C:\Program Files\rsync\rsync.exe",
                "-a",
                r"E:\src\",
                r"E:\destbench-1\dst"
            ]
        );
    }

    #[test]
    fn the_marker_is_recognised_only_first() {
        let args = os(&["destbench.exe", CHILD_MARKER, "restic", "backup", "E:\\src"]);
        let (program, rest) = launched(&args).unwrap().unwrap();
        assert_eq!(program, "restic");
        assert_eq!(rest, os(&["backup", "E:\\src"]));
        let bare = os(&["destbench.exe", CHILD_MARKER, "borg"]);
        assert_eq!(launched(&bare).unwrap().unwrap().1, [] as [OsString; 0]);
        // A user's own arguments are destbench's, the marker anywhere else included.
        assert!(launched(&os(&["destbench.exe", "run", "E:\\"])).is_none());
        assert!(launched(&os(&["destbench.exe", "run", CHILD_MARKER, "x"])).is_none());
        assert!(launched(&os(&["destbench.exe"])).is_none());
        assert!(low_integrity_child(&os(&["destbench.exe", "list"])).is_none());
    }

    /// With no program the launcher fails, and runs nothing.
    #[test]
    fn the_marker_alone_fails() {
        let args = os(&["destbench.exe", CHILD_MARKER]);
        assert!(launched(&args).unwrap().is_err());
        assert_eq!(low_integrity_child(&args), Some(LAUNCH_FAILED));
    }

    #[test]
    fn the_label_read_back_is_recognised() {
        assert!(is_low_label("S:(ML;OICI;NW;;;LW)"));
        // Auto-inherited flags on the SACL, and another ACE beside it.
        assert!(is_low_label("S:AI(ML;OICI;NW;;;LW)(AU;SA;FA;;;WD)"));
        assert!(!is_low_label(""));
        assert!(!is_low_label("S:(ML;OICI;NW;;;ME)"));
        // Not inherited by the directory's contents: files made in it would be Medium.
        assert!(!is_low_label("S:(ML;;NW;;;LW)"));
        assert!(!is_low_label("D:(ML;OICI;NW;;;LW)"));
    }

    /// The descriptor the label is set from says what it should.
    #[test]
    fn the_label_is_low_no_write_up_and_inherited() {
        assert!(is_low_label(LOW_LABEL_SDDL));
        LocalBox::security_descriptor(LOW_LABEL_SDDL).unwrap();
    }

    #[test]
    fn a_local_directory_is_not_on_a_network() {
        let tmp = tempfile::tempdir().unwrap();
        let dir = crate::platform::open_dir(tmp.path()).unwrap();
        let dir = crate::platform::AsHandleRef::handle_ref(&dir);
        assert!(!on_network(dir).unwrap());
    }

    /// Tests run at the user's level, above Low: what the launcher checks it left.
    #[test]
    fn the_test_process_is_not_low() {
        assert!(own_integrity_rid().unwrap() > LOW_RID);
    }

    /// Run on Windows only: wine keeps no integrity labels (`scripts/windows-check` skips
    /// these by name). Each fails, never skips, where the label or the Low token is refused.
    mod windows_only {
        use super::super::*;
        use super::os;
        use crate::platform::{self, AsHandleRef};

        /// Set in the test's own re-runs: the file the Low program writes.
        const TARGET_ENV: &str = "DESTBENCH_TEST_LOW_TARGET";
        const THIS_TEST: &str = "platform::confine::windows::tests::windows_only::a_low_program_writes_in_the_scratch_only";

        /// The test process run again (it names this test only): at Medium it is the launcher
        /// (`low_integrity_child`) of itself; at Low it writes the target, exiting 0 when it
        /// could, 5 when access was denied.
        fn rerun(target: &std::path::Path) -> i32 {
            std::process::Command::new(std::env::current_exe().unwrap())
                .args(["--exact", THIS_TEST, "--nocapture", "--test-threads=1"])
                .env(TARGET_ENV, target)
                .status()
                .unwrap()
                .code()
                .unwrap()
        }

        /// The re-run's part, when it is one.
        fn as_rerun() {
            let Some(target) = std::env::var_os(TARGET_ENV) else {
                return;
            };
            let code = if own_integrity_rid().unwrap() == LOW_RID {
                match std::fs::write(&target, b"low") {
                    Ok(()) => 0,
                    Err(e) if e.kind() == io::ErrorKind::PermissionDenied => 5,
                    Err(_) => 1,
                }
            } else {
                let exe = std::env::current_exe().unwrap();
                let mut args = os(&["destbench.exe", CHILD_MARKER]);
                args.push(exe.into_os_string());
                args.extend(os(&[
                    "--exact",
                    THIS_TEST,
                    "--nocapture",
                    "--test-threads=1",
                ]));
                low_integrity_child(&args).unwrap()
            };
            std::process::exit(code);
        }

        #[test]
        fn a_low_program_writes_in_the_scratch_only() {
            as_rerun();
            let tmp = tempfile::tempdir().unwrap();
            let scratch = tmp.path().join("scratch");
            let outside = tmp.path().join("outside");
            std::fs::create_dir(&scratch).unwrap();
            std::fs::create_dir(&outside).unwrap();
            let dir = platform::open_dir(&scratch).unwrap();
            let writable = [Writable {
                dir: dir.handle_ref(),
                path: &scratch,
            }];
            let (_rules, how) = confine(&writable).unwrap();
            assert!(how.contains("low integrity"), "{how}");
            assert_eq!(rerun(&scratch.join("in")), 0, "writing in the scratch");
            assert_eq!(std::fs::read(scratch.join("in")).unwrap(), b"low");
            assert_eq!(rerun(&outside.join("out")), 5, "writing outside it");
            assert!(!outside.join("out").exists());
        }
    }
}
