//! A Job Object around a program destbench runs: what the program starts joins its job, so a
//! hung backup tool is stopped with its children (a kill of the process alone leaves them).

use std::io;
use std::os::windows::io::{AsRawHandle, FromRawHandle, OwnedHandle};
use std::process::Child;

use windows_sys::Win32::System::JobObjects::{
    AssignProcessToJobObject, CreateJobObjectW, TerminateJobObject,
};

/// A job holding one started program and every process it starts after joining.
pub struct Job(OwnedHandle);

impl Job {
    /// A new job holding `child`. A process the child started before it joined (microseconds
    /// after its start) is not in it.
    pub fn holding(child: &Child) -> io::Result<Job> {
        // SAFETY: no security attributes and no name: a new anonymous job, or null.
        let handle = unsafe { CreateJobObjectW(std::ptr::null(), std::ptr::null()) };
        if handle.is_null() {
            return Err(io::Error::last_os_error());
        }
        // SAFETY: a handle just created, owned by nothing else; closed when the job drops.
        let job = Job(unsafe { OwnedHandle::from_raw_handle(handle) });
        // SAFETY: the job's handle and the child's process handle, both open for the call.
        if unsafe { AssignProcessToJobObject(job.0.as_raw_handle(), child.as_raw_handle()) } == 0 {
            return Err(io::Error::last_os_error());
        }
        Ok(job)
    }

    /// Ends every process in the job.
    pub fn terminate(&self) -> io::Result<()> {
        // SAFETY: the job's handle, open while `self` lives.
        if unsafe { TerminateJobObject(self.0.as_raw_handle(), 1) } == 0 {
            return Err(io::Error::last_os_error());
        }
        Ok(())
    }
}
