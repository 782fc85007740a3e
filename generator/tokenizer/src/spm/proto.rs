//! The fields of a SentencePiece model file (`.spm`, `.model`: a protobuf `ModelProto`, see
//! sentencepiece's `sentencepiece_model.proto`) that encoding and decoding need.
//!
//! A hand-written reader of protobuf's wire format rather than a crate: no crate in the
//! workspace reads this message (`tokenizers` and `spm_precompiled` take an already-converted
//! `tokenizer.json`), and `prost` would need the `.proto` file and a build-time code generator
//! for the dozen scalar fields read here. Unknown fields are skipped, as protobuf does, and
//! proto2 defaults apply to absent ones.

/// One entry of `ModelProto.pieces`; its id is its index.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct ProtoPiece {
    pub piece: String,
    pub score: f32,
    pub kind: PieceKind,
}

/// `ModelProto.SentencePiece.Type`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum PieceKind {
    Normal,
    Unknown,
    Control,
    UserDefined,
    Unused,
    Byte,
}

/// `TrainerSpec.ModelType`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum ModelType {
    Unigram,
    Bpe,
    Word,
    Char,
}

/// The `TrainerSpec` fields that change how text is encoded or decoded.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct TrainerSpec {
    pub model_type: ModelType,
    pub byte_fallback: bool,
    pub treat_whitespace_as_suffix: bool,
    pub unk_surface: String,
}

/// `NormalizerSpec`.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct NormalizerSpec {
    pub name: String,
    pub precompiled_charsmap: Vec<u8>,
    pub add_dummy_prefix: bool,
    pub remove_extra_whitespaces: bool,
    pub escape_whitespaces: bool,
}

/// `ModelProto`, as far as tracebook reads it.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct ModelProto {
    pub pieces: Vec<ProtoPiece>,
    pub trainer: TrainerSpec,
    pub normalizer: NormalizerSpec,
    /// `denormalizer_spec`, when the file has one.
    pub denormalizer: Option<NormalizerSpec>,
}

impl ModelProto {
    /// Reads a serialized `ModelProto`; the error says what is malformed.
    pub fn parse(bytes: &[u8]) -> Result<ModelProto, String> {
        let mut model = ModelProto {
            pieces: Vec::new(),
            trainer: TrainerSpec {
                model_type: ModelType::Unigram,
                byte_fallback: false,
                treat_whitespace_as_suffix: false,
                unk_surface: " \u{2047} ".to_owned(),
            },
            normalizer: NormalizerSpec::default(),
            denormalizer: None,
        };
        for field in Fields(bytes) {
            match field? {
                (1, Value::Bytes(b)) => model.pieces.push(piece(b)?),
                (2, Value::Bytes(b)) => trainer(b, &mut model.trainer)?,
                (3, Value::Bytes(b)) => normalizer(b, &mut model.normalizer)?,
                (5, Value::Bytes(b)) => {
                    normalizer(b, model.denormalizer.get_or_insert_with(Default::default))?
                }
                _ => {}
            }
        }
        Ok(model)
    }
}

impl Default for NormalizerSpec {
    /// proto2's defaults: whitespace handled the SentencePiece way, no character map.
    fn default() -> Self {
        NormalizerSpec {
            name: String::new(),
            precompiled_charsmap: Vec::new(),
            add_dummy_prefix: true,
            remove_extra_whitespaces: true,
            escape_whitespaces: true,
        }
    }
}

fn piece(bytes: &[u8]) -> Result<ProtoPiece, String> {
    let mut piece = ProtoPiece {
        piece: String::new(),
        score: 0.0,
        kind: PieceKind::Normal,
    };
    for field in Fields(bytes) {
        match field? {
            (1, Value::Bytes(b)) => piece.piece = text(b, "piece")?,
            (2, Value::Fixed32(bits)) => piece.score = f32::from_bits(bits),
            (3, Value::Varint(v)) => {
                piece.kind = match v {
                    1 => PieceKind::Normal,
                    2 => PieceKind::Unknown,
                    3 => PieceKind::Control,
                    4 => PieceKind::UserDefined,
                    5 => PieceKind::Unused,
                    6 => PieceKind::Byte,
                    other => return Err(format!("piece type {other} is not a known type")),
                }
            }
            _ => {}
        }
    }
    Ok(piece)
}

fn trainer(bytes: &[u8], spec: &mut TrainerSpec) -> Result<(), String> {
    for field in Fields(bytes) {
        match field? {
            (3, Value::Varint(v)) => {
                spec.model_type = match v {
                    1 => ModelType::Unigram,
                    2 => ModelType::Bpe,
                    3 => ModelType::Word,
                    4 => ModelType::Char,
                    other => return Err(format!("model type {other} is not a known type")),
                }
            }
            (24, Value::Varint(v)) => spec.treat_whitespace_as_suffix = v != 0,
            (35, Value::Varint(v)) => spec.byte_fallback = v != 0,
            (44, Value::Bytes(b)) => spec.unk_surface = text(b, "unk_surface")?,
            _ => {}
        }
    }
    Ok(())
}

fn normalizer(bytes: &[u8], spec: &mut NormalizerSpec) -> Result<(), String> {
    for field in Fields(bytes) {
        match field? {
            (1, Value::Bytes(b)) => spec.name = text(b, "normalizer name")?,
            (2, Value::Bytes(b)) => spec.precompiled_charsmap = b.to_vec(),
            (3, Value::Varint(v)) => spec.add_dummy_prefix = v != 0,
            (4, Value::Varint(v)) => spec.remove_extra_whitespaces = v != 0,
            (5, Value::Varint(v)) => spec.escape_whitespaces = v != 0,
            _ => {}
        }
    }
    Ok(())
}

fn text(bytes: &[u8], what: &str) -> Result<String, String> {
    String::from_utf8(bytes.to_vec()).map_err(|_| format!("a {what} is not UTF-8"))
}

/// A field's value by wire type.
#[derive(Debug, PartialEq)]
enum Value<'a> {
    Varint(u64),
    /// Read past: no field read here has this type.
    Fixed64,
    Bytes(&'a [u8]),
    Fixed32(u32),
}

/// The fields of one message, in file order: `(field number, value)`.
struct Fields<'a>(&'a [u8]);

impl<'a> Iterator for Fields<'a> {
    type Item = Result<(u32, Value<'a>), String>;

    fn next(&mut self) -> Option<Self::Item> {
        if self.0.is_empty() {
            return None;
        }
        let field = self.field();
        if field.is_err() {
            self.0 = &[];
        }
        Some(field)
    }
}

impl<'a> Fields<'a> {
    fn field(&mut self) -> Result<(u32, Value<'a>), String> {
        let key = self.varint()?;
        let number = u32::try_from(key >> 3).map_err(|_| "a field number is too large")?;
        let value = match key & 7 {
            0 => Value::Varint(self.varint()?),
            1 => {
                self.take(8)?;
                Value::Fixed64
            }
            2 => {
                let len = usize::try_from(self.varint()?).map_err(|_| "a length is too large")?;
                Value::Bytes(self.take(len)?)
            }
            5 => Value::Fixed32(u32::from_le_bytes(
                self.take(4)?.try_into().unwrap_or_default(),
            )),
            wire => {
                return Err(format!(
                    "field {number} has wire type {wire}, which is not read"
                ))
            }
        };
        Ok((number, value))
    }

    fn varint(&mut self) -> Result<u64, String> {
        let mut value = 0u64;
        for (i, &byte) in self.0.iter().enumerate().take(10) {
            value |= u64::from(byte & 0x7f) << (7 * i);
            if byte & 0x80 == 0 {
                self.0 = &self.0[i + 1..];
                return Ok(value);
            }
        }
        Err("a varint is cut off or longer than 10 bytes".to_owned())
    }

    fn take(&mut self, len: usize) -> Result<&'a [u8], String> {
        if len > self.0.len() {
            return Err("the file ends inside a field (is it cut off?)".to_owned());
        }
        let (head, rest) = self.0.split_at(len);
        self.0 = rest;
        Ok(head)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn varint(mut v: u64, out: &mut Vec<u8>) {
        while v >= 0x80 {
            out.push((v as u8) | 0x80);
            v >>= 7;
        }
        out.push(v as u8);
    }

    fn bytes_field(number: u64, body: &[u8], out: &mut Vec<u8>) {
        varint(number << 3 | 2, out);
        varint(body.len() as u64, out);
        out.extend_from_slice(body);
    }

    #[test]
    fn reads_pieces_specs_and_defaults() {
        let mut unk = Vec::new();
        bytes_field(1, b"<unk>", &mut unk);
        varint(3 << 3, &mut unk);
        varint(2, &mut unk);
        let mut a = Vec::new();
        bytes_field(1, "\u{2581}a".as_bytes(), &mut a);
        a.push(2 << 3 | 5);
        a.extend_from_slice(&(-1.5f32).to_le_bytes());
        let mut trainer = Vec::new();
        varint(3 << 3, &mut trainer);
        varint(2, &mut trainer);
        varint(35 << 3, &mut trainer);
        varint(1, &mut trainer);
        varint(99 << 3 | 1, &mut trainer); // an unknown fixed64 field is skipped
        trainer.extend_from_slice(&[0; 8]);
        let mut normalizer = Vec::new();
        bytes_field(1, b"nmt_nfkc", &mut normalizer);
        varint(3 << 3, &mut normalizer);
        varint(0, &mut normalizer);
        let mut model = Vec::new();
        bytes_field(1, &unk, &mut model);
        bytes_field(1, &a, &mut model);
        bytes_field(2, &trainer, &mut model);
        bytes_field(3, &normalizer, &mut model);

        let parsed = ModelProto::parse(&model).expect("parses");
        assert_eq!(parsed.pieces.len(), 2);
        assert_eq!(parsed.pieces[0].kind, PieceKind::Unknown);
        assert_eq!(parsed.pieces[1].piece, "\u{2581}a");
        assert_eq!(parsed.pieces[1].score, -1.5);
        assert_eq!(parsed.pieces[1].kind, PieceKind::Normal);
        assert_eq!(parsed.trainer.model_type, ModelType::Bpe);
        assert!(parsed.trainer.byte_fallback);
        assert_eq!(parsed.normalizer.name, "nmt_nfkc");
        assert!(!parsed.normalizer.add_dummy_prefix);
        assert!(parsed.normalizer.remove_extra_whitespaces, "proto2 default");
        assert!(parsed.denormalizer.is_none());
    }

    #[test]
    fn cut_off_files_are_errors() {
        let mut model = Vec::new();
        bytes_field(1, b"\x0a\x05<unk>", &mut model);
        assert!(ModelProto::parse(&model).is_ok());
        assert!(ModelProto::parse(&model[..model.len() - 2]).is_err());
        assert!(ModelProto::parse(&[0x80]).is_err());
        assert!(ModelProto::parse(&[0x0b]).is_err(), "wire type 3 (group)");
    }
}
