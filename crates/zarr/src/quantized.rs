//! Quantization of the values written (`--quantize`, the `_Quantize*` attributes), as
//! libnetcdf applies it to netCDF-4 variables, through the `quantize` crate.

use ncmodel::{AtomicType, Quantize};

/// `data` (elements of `atomic` in the machine's byte order) quantized with `q`; values
/// equal to `fill` (one element) are kept. Types other than float and double are returned
/// as they are.
pub fn quantized(data: &[u8], atomic: AtomicType, fill: &[u8], q: Quantize) -> Vec<u8> {
    match atomic {
        AtomicType::Float => {
            let mut values: Vec<f32> = data
                .chunks_exact(4)
                .map(|b| f32::from_ne_bytes([b[0], b[1], b[2], b[3]]))
                .collect();
            let fill = <[u8; 4]>::try_from(fill).ok().map(f32::from_ne_bytes);
            quantize::quantize_f32(&mut values, q, fill);
            values.iter().flat_map(|v| v.to_ne_bytes()).collect()
        }
        AtomicType::Double => {
            let mut values: Vec<f64> = data
                .chunks_exact(8)
                .map(|b| f64::from_ne_bytes([b[0], b[1], b[2], b[3], b[4], b[5], b[6], b[7]]))
                .collect();
            let fill = <[u8; 8]>::try_from(fill).ok().map(f64::from_ne_bytes);
            quantize::quantize_f64(&mut values, q, fill);
            values.iter().flat_map(|v| v.to_ne_bytes()).collect()
        }
        _ => data.to_vec(),
    }
}
