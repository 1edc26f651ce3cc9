//! The launcher of a Low program: destbench itself, started with the marker, lowers its own
//! token to Low, starts the program (which inherits the token) and waits for it.

use std::ffi::{OsStr, OsString};
use std::io;
use std::os::windows::io::{AsRawHandle, FromRawHandle, OwnedHandle};
use std::process::{Child, Command};

use windows_sys::Win32::Security::{
    CreateWellKnownSid, GetSidSubAuthority, GetSidSubAuthorityCount, GetTokenInformation,
    SECURITY_MAX_SID_SIZE, SID_AND_ATTRIBUTES, SetTokenInformation, TOKEN_ADJUST_DEFAULT,
    TOKEN_MANDATORY_LABEL, TOKEN_QUERY, TokenIntegrityLevel, WinLowLabelSid,
};
use windows_sys::Win32::System::JobObjects::{
    AssignProcessToJobObject, CreateJobObjectW, JOB_OBJECT_LIMIT_KILL_ON_JOB_CLOSE,
    JOBOBJECT_EXTENDED_LIMIT_INFORMATION, JobObjectExtendedLimitInformation,
    SetInformationJobObject,
};
use windows_sys::Win32::System::Threading::{GetCurrentProcess, OpenProcessToken};

use super::{CHILD_MARKER, LAUNCH_FAILED, LOW_RID, SE_GROUP_INTEGRITY};

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
pub(super) fn launched(args: &[OsString]) -> Option<Result<(&OsStr, &[OsString]), String>> {
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
pub(super) fn own_integrity_rid() -> io::Result<u32> {
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
