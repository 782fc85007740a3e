//! Reading a CPU tensor's values in place, without copying them out of candle.

use candle_core::{Storage, Tensor};

/// Call `f` with the contiguous f32 values of `t`.
pub fn with_f32<R>(t: &Tensor, f: impl FnOnce(&[f32]) -> R) -> candle_core::Result<R> {
    let (storage, layout) = t.storage_and_layout();
    let Storage::Cpu(cpu) = &*storage else {
        candle_core::bail!("training runs on the CPU only")
    };
    let Some((start, end)) = layout.contiguous_offsets() else {
        drop(storage);
        return with_f32(&t.contiguous()?, f);
    };
    Ok(f(&cpu.as_slice::<f32>()?[start..end]))
}
