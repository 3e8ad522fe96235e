//! Columns passed from Python without a Python object per row: a string
//! column as an Arrow `large_string` array's two buffers (`int64` offsets,
//! UTF-8 bytes), or as a list of `str` when pyarrow is not there; numbers
//! as a little-endian `float64`/`int64` buffer.

use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyList, PyTuple};

use crate::errors::{data, parameter};

/// A string column: row `i` is `data[offsets[i]..offsets[i + 1]]`.
#[derive(Debug, Default)]
pub struct StrColumn {
    offsets: Vec<usize>,
    data: String,
}

impl StrColumn {
    /// Rows.
    pub fn len(&self) -> usize {
        self.offsets.len().saturating_sub(1)
    }

    /// Row `i`.
    pub fn get(&self, i: usize) -> &str {
        &self.data[self.offsets[i]..self.offsets[i + 1]]
    }
}

impl<'py> FromPyObject<'_, 'py> for StrColumn {
    type Error = PyErr;

    fn extract(ob: Borrowed<'_, 'py, PyAny>) -> PyResult<Self> {
        if let Ok(list) = ob.cast::<PyList>() {
            let mut c = StrColumn {
                offsets: Vec::with_capacity(list.len() + 1),
                data: String::new(),
            };
            c.offsets.push(0);
            for item in list.iter() {
                c.data
                    .push_str(&item.extract::<std::borrow::Cow<'_, str>>()?);
                c.offsets.push(c.data.len());
            }
            return Ok(c);
        }
        let t = ob.cast::<PyTuple>().map_err(|_| {
            parameter(
                "string column",
                "(offsets, bytes) or a list of str",
                "something else",
            )
        })?;
        let offsets = t.get_item(0)?;
        let bytes = t.get_item(1)?;
        let offsets = offsets.cast::<PyBytes>()?.as_bytes();
        let bytes = bytes.cast::<PyBytes>()?.as_bytes();
        let data = std::str::from_utf8(bytes)
            .map_err(|e| data("InvalidUtf8", format!("a string column is not UTF-8: {e}")))?
            .to_string();
        let offsets: Vec<usize> = offsets
            .chunks_exact(8)
            .map(|b| i64::from_le_bytes(b.try_into().unwrap_or([0; 8])))
            .map(|o| usize::try_from(o).unwrap_or(usize::MAX))
            .collect();
        let ok = offsets.first() == Some(&0)
            && offsets.windows(2).all(|w| w[0] <= w[1])
            && offsets.last().is_some_and(|&l| l <= data.len())
            && offsets.iter().all(|&o| data.is_char_boundary(o));
        if !ok {
            return Err(data_err());
        }
        Ok(StrColumn { offsets, data })
    }
}

fn data_err() -> PyErr {
    data(
        "Columns",
        "a string column's offsets do not fit its bytes".into(),
    )
}

/// A `float64` column (a little-endian buffer, or a list of floats).
#[derive(Debug, Default)]
pub struct F64Column(pub Vec<f64>);

impl<'py> FromPyObject<'_, 'py> for F64Column {
    type Error = PyErr;

    fn extract(ob: Borrowed<'_, 'py, PyAny>) -> PyResult<Self> {
        if let Ok(b) = ob.cast::<PyBytes>() {
            let b = b.as_bytes();
            if b.len() % 8 != 0 {
                return Err(parameter("float column", "a multiple of 8 bytes", b.len()));
            }
            return Ok(F64Column(
                b.chunks_exact(8)
                    .map(|c| f64::from_le_bytes(c.try_into().unwrap_or([0; 8])))
                    .collect(),
            ));
        }
        Ok(F64Column(ob.extract()?))
    }
}
