//! Page-aligned I/O buffers, as `O_DIRECT` requires.

use std::alloc::{self, Layout};
use std::ptr::NonNull;

use crate::platform::DIRECT_ALIGN;

/// A heap buffer whose start is aligned to [`DIRECT_ALIGN`] and whose length is a multiple of it,
/// zero-filled at allocation.
pub struct AlignedBuf {
    ptr: NonNull<u8>,
    layout: Layout,
}

// SAFETY: AlignedBuf owns its allocation exclusively, like a Box<[u8]>.
unsafe impl Send for AlignedBuf {}

impl AlignedBuf {
    /// Allocates a zeroed buffer of at least `len` bytes (rounded up to the alignment).
    pub fn new(len: usize) -> Self {
        let len = len.max(1).next_multiple_of(DIRECT_ALIGN);
        let layout = Layout::from_size_align(len, DIRECT_ALIGN).expect("buffer layout");
        // SAFETY: the layout has a non-zero size.
        let raw = unsafe { alloc::alloc_zeroed(layout) };
        let ptr = NonNull::new(raw).unwrap_or_else(|| alloc::handle_alloc_error(layout));
        AlignedBuf { ptr, layout }
    }

    pub fn len(&self) -> usize {
        self.layout.size()
    }

    pub fn is_empty(&self) -> bool {
        false
    }

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
    pub fn as_mut_ptr(&mut self) -> *mut u8 {
        self.ptr.as_ptr()
    }
}

impl Drop for AlignedBuf {
    fn drop(&mut self) {
        // SAFETY: allocated in `new` with this exact layout.
        unsafe { alloc::dealloc(self.ptr.as_ptr(), self.layout) };
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
    }
}
