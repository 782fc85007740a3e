//! The JSON layout of a trace file, and the header check that comes before anything else.

use crate::codec::{Compression, Derivation, Encoding, Prediction};
use crate::error::{Origin, TraceError};
use crate::meta::TraceMeta;
use crate::{FORMAT, FORMAT_VERSION};
use serde::de::{IgnoredAny, MapAccess, Visitor};
use serde::{Deserialize, Deserializer, Serialize};
use serde_json::Value;
use std::collections::BTreeMap;
use std::fmt;

/// A trace file as written: keys in this order, tensors sorted by name.
#[derive(Serialize)]
pub(crate) struct FileOut<'a> {
    pub format: &'a str,
    pub version: u32,
    pub meta: &'a TraceMeta,
    pub tensors: BTreeMap<&'a str, TensorOut<'a>>,
}

#[derive(Serialize)]
pub(crate) struct TensorOut<'a> {
    pub shape: &'a [usize],
    #[serde(skip_serializing_if = "Option::is_none")]
    pub encoding: Option<Encoding>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub predict: Option<&'a Prediction>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub derive: Option<&'a Derivation>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub compression: Option<Compression>,
    /// Standard base64 (with padding) of the encoded bytes.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub data: Option<String>,
}

/// A trace file as read, once its header has been checked. Unknown keys are ignored.
#[derive(Deserialize)]
pub(crate) struct FileIn {
    pub meta: TraceMeta,
    pub tensors: BTreeMap<String, TensorIn>,
}

#[derive(Deserialize)]
pub(crate) struct TensorIn {
    pub shape: Vec<usize>,
    /// Absent for a derived tensor.
    #[serde(default)]
    pub encoding: Option<Encoding>,
    /// Version 2: the values are this prediction plus the decoded data.
    #[serde(default)]
    pub predict: Option<Prediction>,
    /// Version 3: the values are exactly this computation of other tensors; no data.
    #[serde(default)]
    pub derive: Option<Derivation>,
    /// Version 2: how the encoded bytes are compressed.
    #[serde(default)]
    pub compression: Option<Compression>,
    #[serde(default)]
    pub data: Option<String>,
}

/// Only the keys that say what the file is; read first, so that a file of another format or
/// version is reported as such rather than as a schema mismatch. Only a JSON object is a
/// header (a derived struct would also accept an array).
#[derive(Default)]
struct Header {
    format: Option<Value>,
    version: Option<Value>,
}

impl<'de> Deserialize<'de> for Header {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        deserializer.deserialize_map(HeaderVisitor)
    }
}

struct HeaderVisitor;

impl<'de> Visitor<'de> for HeaderVisitor {
    type Value = Header;

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("a JSON object")
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Header, A::Error> {
        let mut header = Header::default();
        while let Some(key) = map.next_key::<String>()? {
            match key.as_str() {
                "format" => header.format = Some(map.next_value()?),
                "version" => header.version = Some(map.next_value()?),
                _ => {
                    map.next_value::<IgnoredAny>()?;
                }
            }
        }
        Ok(header)
    }
}

/// Parse `text` as a trace file of this format and version.
pub(crate) fn parse(text: &str, origin: &Origin) -> Result<FileIn, TraceError> {
    let header: Header = serde_json::from_str(text).map_err(|e| {
        if e.is_data() {
            TraceError::WrongFormat {
                origin: origin.clone(),
                reason: "the top level is not a JSON object".to_string(),
            }
        } else {
            not_json(e, origin)
        }
    })?;
    check_format(header.format.as_ref(), origin)?;
    let version = check_version(header.version.as_ref(), origin)?;
    serde_json::from_str(text).map_err(|e| TraceError::Schema {
        origin: origin.clone(),
        version,
        line: e.line(),
        column: e.column(),
        message: strip_position(&e),
    })
}

fn check_format(format: Option<&Value>, origin: &Origin) -> Result<(), TraceError> {
    let reason = match format {
        Some(Value::String(s)) if s == FORMAT => return Ok(()),
        Some(found) => format!("its \"format\" is {found}, not \"{FORMAT}\""),
        None => "it has no \"format\" key".to_string(),
    };
    Err(TraceError::WrongFormat {
        origin: origin.clone(),
        reason,
    })
}

/// The file's version when this crate reads it (1 to `FORMAT_VERSION`).
fn check_version(version: Option<&Value>, origin: &Origin) -> Result<u32, TraceError> {
    let found = match version {
        Some(Value::Number(n)) => match n.as_u64().and_then(|v| u32::try_from(v).ok()) {
            Some(v) if (1..=FORMAT_VERSION).contains(&v) => return Ok(v),
            _ => n.to_string(),
        },
        Some(found) => found.to_string(),
        None => "(missing)".to_string(),
    };
    Err(TraceError::UnknownVersion {
        origin: origin.clone(),
        found,
        supported: FORMAT_VERSION,
    })
}

pub(crate) fn not_json(e: serde_json::Error, origin: &Origin) -> TraceError {
    TraceError::NotJson {
        origin: origin.clone(),
        line: e.line(),
        column: e.column(),
        message: strip_position(&e),
    }
}

/// serde_json's message without its trailing " at line L column C", which we report apart.
fn strip_position(e: &serde_json::Error) -> String {
    let message = e.to_string();
    let suffix = format!(" at line {} column {}", e.line(), e.column());
    message
        .strip_suffix(&suffix)
        .map(str::to_string)
        .unwrap_or(message)
}
