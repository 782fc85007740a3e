//! Keeping freed buffers in the process while training.
//!
//! A step allocates and frees 25 MB buffers dozens of times (each window's `[V, T]` logits and
//! softmax, the `[V, d]` gradients, the optimiser's new weights). glibc's malloc serves blocks
//! that large from fresh `mmap`s and unmaps them on free, so the kernel faults in and zeroes
//! every page of every such buffer again: a sixth of a step went to page faults. Raising the
//! mmap threshold to glibc's maximum (32 MB) and the trim threshold above it keeps these
//! blocks in the heap, where the next allocation of the same size reuses them.

/// The largest block malloc then serves from its heap (glibc's maximum threshold).
#[cfg(all(target_os = "linux", target_env = "gnu"))]
const MMAP_THRESHOLD: libc::c_int = 32 << 20;

/// How much free memory at the top of the heap malloc keeps instead of returning it.
#[cfg(all(target_os = "linux", target_env = "gnu"))]
const TRIM_THRESHOLD: libc::c_int = 1 << 30;

/// Tell the allocator to keep large freed blocks for reuse (glibc only; elsewhere a no-op).
pub fn keep_freed_buffers() {
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    // SAFETY: mallopt only sets allocator parameters, under the allocator's own lock.
    unsafe {
        libc::mallopt(libc::M_MMAP_THRESHOLD, MMAP_THRESHOLD);
        libc::mallopt(libc::M_TRIM_THRESHOLD, TRIM_THRESHOLD);
    }
}
