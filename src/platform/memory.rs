//! I/O buffers in transparent huge pages (Linux; on macOS the same aligned mapping in base
//! pages: it has no transparent huge pages).
//!
//! A direct I/O request is handed to the device as one scatter-gather segment per physically
//! contiguous run of its buffer. A 1 MiB buffer in 4 KiB pages is 256 segments, more than many
//! queues take in one request (virtio-blk here allows 254, many USB and SATA queues 128): the
//! kernel splits it, and the device serves a 1016 KiB request and an 8 KiB one instead of the
//! 1 MiB the test names. In a 2 MiB page the buffer is one segment and the request reaches the
//! device whole. fio reaches the same with `iomem=mmaphuge`; its default (`malloc`) splits.

use std::ptr::NonNull;

use rustix::mm::{MapFlags, ProtFlags, mmap_anonymous, munmap};

/// The size of a transparent huge page on x86-64 and arm64 (4 KiB base pages).
pub const HUGE_PAGE: usize = 2 << 20;

/// `len` bytes (rounded up to whole huge pages) of zeroed memory starting on a huge-page
/// boundary, asked for in huge pages and faulted in now, so the first timed request pays no page
/// fault. The kernel may still give base pages (transparent huge pages off, or no contiguous
/// memory): the buffer works the same, only its requests may be split. None if the mapping fails.
pub fn map_huge(len: usize) -> Option<(NonNull<u8>, usize)> {
    let len = len.max(1).next_multiple_of(HUGE_PAGE);
    // Map one huge page more than needed and trim both ends, so the start is aligned.
    let padded = len + HUGE_PAGE;
    // SAFETY: a fresh anonymous private mapping at an address of the kernel's choosing aliases
    // nothing.
    let raw = unsafe {
        mmap_anonymous(
            std::ptr::null_mut(),
            padded,
            ProtFlags::READ | ProtFlags::WRITE,
            MapFlags::PRIVATE,
        )
    }
    .ok()? as usize;
    let start = raw.next_multiple_of(HUGE_PAGE);
    let (head, tail) = (start - raw, raw + padded - (start + len));
    // SAFETY: the head and tail lie inside the mapping just made and outside [start, start+len).
    unsafe {
        if head > 0 {
            let _ = munmap(raw as *mut _, head);
        }
        if tail > 0 {
            let _ = munmap((start + len) as *mut _, tail);
        }
        // Advice only: without it (THP disabled) the memory stays in base pages.
        #[cfg(target_os = "linux")]
        let _ = rustix::mm::madvise(start as *mut _, len, rustix::mm::Advice::LinuxHugepage);
        // Fault every page in now, as huge pages where granted.
        std::ptr::write_bytes(start as *mut u8, 0, len);
    }
    Some((NonNull::new(start as *mut u8)?, len))
}

/// Returns memory from [`map_huge`].
///
/// # Safety
/// `ptr` and `len` are exactly what `map_huge` returned, and nothing uses the memory afterwards.
pub unsafe fn unmap_huge(ptr: NonNull<u8>, len: usize) {
    // SAFETY: the caller passes a whole mapping of ours that nothing uses any more.
    let _ = unsafe { munmap(ptr.as_ptr().cast(), len) };
}

/// Whether the memory at `ptr` is backed by a huge page now (from the `AnonHugePages` of the
/// mapping in `/proc/self/smaps`); None if that cannot be read.
#[cfg(target_os = "linux")]
#[cfg(test)]
pub fn is_huge(ptr: NonNull<u8>) -> Option<bool> {
    let smaps = std::fs::read_to_string("/proc/self/smaps").ok()?;
    let addr = ptr.as_ptr() as usize;
    let mut inside = false;
    for line in smaps.lines() {
        if let Some((range, _)) = line.split_once(' ')
            && let Some((lo, hi)) = range.split_once('-')
            && let (Ok(lo), Ok(hi)) = (usize::from_str_radix(lo, 16), usize::from_str_radix(hi, 16))
        {
            inside = (lo..hi).contains(&addr);
        } else if inside && let Some(kib) = line.strip_prefix("AnonHugePages:") {
            let kib: u64 = kib.trim().trim_end_matches("kB").trim().parse().ok()?;
            return Some(kib > 0);
        }
    }
    None
}

/// macOS has no transparent huge pages: the buffer is in base pages.
#[cfg(not(target_os = "linux"))]
#[cfg(test)]
pub fn is_huge(_ptr: NonNull<u8>) -> Option<bool> {
    Some(false)
}
