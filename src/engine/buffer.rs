//! Page-aligned I/O buffers, as `O_DIRECT` requires; large ones in huge pages, so that a request
//! reaches the device whole (see `platform::map_huge`).

use std::alloc::{self, Layout};
use std::ptr::NonNull;

use crate::platform::{self, DIRECT_ALIGN};

/// Buffers this large or larger are mapped in huge pages: from here on a buffer in base pages
/// has more segments than many queues take in one request (128 × 4 KiB = 512 KiB).
pub const HUGE_FROM: usize = 512 << 10;

/// A buffer whose start is aligned to [`DIRECT_ALIGN`] and whose length is a multiple of it,
/// zero-filled at allocation.
pub struct AlignedBuf {
    ptr: NonNull<u8>,
    len: usize,
    memory: Memory,
}

/// Where a buffer's memory came from, so that it goes back there.
enum Memory {
    Heap(Layout),
    /// A mapping of this many bytes (whole huge pages).
    Huge(usize),
}

// SAFETY: AlignedBuf owns its allocation exclusively, like a Box<[u8]>.
unsafe impl Send for AlignedBuf {}

impl AlignedBuf {
    /// Allocates a zeroed buffer of at least `len` bytes (rounded up to the alignment).
    pub fn new(len: usize) -> Self {
        let len = len.max(1).next_multiple_of(DIRECT_ALIGN);
        if len >= HUGE_FROM
            && let Some((ptr, mapped)) = platform::map_huge(len)
        {
            return AlignedBuf {
                ptr,
                len,
                memory: Memory::Huge(mapped),
            };
        }
        let layout = Layout::from_size_align(len, DIRECT_ALIGN).expect("buffer layout");
        // SAFETY: the layout has a non-zero size.
        let raw = unsafe { alloc::alloc_zeroed(layout) };
        let ptr = NonNull::new(raw).unwrap_or_else(|| alloc::handle_alloc_error(layout));
        AlignedBuf {
            ptr,
            len,
            memory: Memory::Heap(layout),
        }
    }

    pub fn len(&self) -> usize {
        self.len
    }

    /// Whether the buffer is in huge pages now (None where that cannot be read).
    #[cfg(test)]
    pub fn in_huge_pages(&self) -> Option<bool> {
        match self.memory {
            Memory::Heap(_) => Some(false),
            Memory::Huge(_) => platform::is_huge(self.ptr),
        }
    }

    #[cfg(test)]
    pub fn as_slice(&self) -> &[u8] {
        // SAFETY: ptr points to `len` initialised (zeroed at allocation) bytes we own.
        unsafe { std::slice::from_raw_parts(self.ptr.as_ptr(), self.len()) }
    }

    pub fn as_mut_slice(&mut self) -> &mut [u8] {
        // SAFETY: as above, and &mut self guarantees exclusive access.
        unsafe { std::slice::from_raw_parts_mut(self.ptr.as_ptr(), self.len()) }
    }

    /// The raw start of the buffer, for handing to the kernel (io_uring). The caller must keep
    /// the buffer alive and untouched until the kernel is done with it.
    #[cfg(any(target_os = "linux", test))]
    pub fn as_mut_ptr(&mut self) -> *mut u8 {
        self.ptr.as_ptr()
    }
}

impl Drop for AlignedBuf {
    fn drop(&mut self) {
        match self.memory {
            // SAFETY: allocated in `new` with this exact layout.
            Memory::Heap(layout) => unsafe { alloc::dealloc(self.ptr.as_ptr(), layout) },
            // SAFETY: mapped in `new` with this length; the buffer is going away with it.
            Memory::Huge(mapped) => unsafe { platform::unmap_huge(self.ptr, mapped) },
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn aligned_and_rounded_up() {
        let mut buf = AlignedBuf::new(5000);
        assert_eq!(buf.len(), 8192);
        assert_eq!(buf.as_mut_ptr() as usize % DIRECT_ALIGN, 0);
        assert!(buf.as_slice().iter().all(|&b| b == 0));
        assert_eq!(buf.in_huge_pages(), Some(false));
    }

    /// A 1 MiB buffer is one huge page where the kernel offers them: one segment per request.
    /// Linux's: Windows gives large pages only with a privilege destbench does not ask for.
    #[cfg(target_os = "linux")]
    #[test]
    fn large_buffers_are_in_huge_pages() {
        let mut buf = AlignedBuf::new(1 << 20);
        assert_eq!(buf.len(), 1 << 20);
        assert_eq!(buf.as_mut_ptr() as usize % platform::HUGE_PAGE, 0);
        assert!(buf.as_slice().iter().all(|&b| b == 0));
        buf.as_mut_slice()[(1 << 20) - 1] = 7;
        let thp = std::fs::read_to_string("/sys/kernel/mm/transparent_hugepage/enabled")
            .unwrap_or_default();
        if thp.contains("[never]") || thp.is_empty() {
            // CI's kernel offers them: there, not getting one is a failure.
            assert!(
                std::env::var_os("DESTBENCH_REQUIRE_ALL").is_none(),
                "transparent huge pages are off ({thp:?})"
            );
            eprintln!("transparent huge pages are off here: only the mapping is checked");
            return;
        }
        assert_eq!(buf.in_huge_pages(), Some(true), "THP is {thp:?}");
    }
}
