//! Windows: no huge pages for I/O buffers. Large pages need the "Lock pages in memory"
//! privilege, which destbench does not ask for: buffers come from the aligned allocator, and an
//! unbuffered request larger than the adapter's transfer size is split by the system.

use std::ptr::NonNull;

/// None: see the module's docs.
pub fn map_huge(_len: usize) -> Option<(NonNull<u8>, usize)> {
    None
}

/// Nothing was mapped by [`map_huge`].
///
/// # Safety
/// Never called with memory of ours: [`map_huge`] gives none.
pub unsafe fn unmap_huge(_ptr: NonNull<u8>, _len: usize) {}

/// None: Windows buffers here are never in huge pages.
#[cfg(test)]
pub fn is_huge(_ptr: NonNull<u8>) -> Option<bool> {
    None
}
