//! [`choice!`]: an option that is one of a few words (`of = "q"`), declared as an enum with
//! its default; an unknown word is an error that lists the words and suggests the nearest.

/// Declares `enum $name { $variant = "word", ... }`, its default, its words and its
/// `Deserialize`.
macro_rules! choice {
    ($(#[$doc:meta])* $vis:vis enum $name:ident { $($variant:ident = $word:literal),+ $(,)? } default $default:ident) => {
        $(#[$doc])*
        #[derive(Debug, Clone, Copy, PartialEq, Eq)]
        $vis enum $name {
            $($variant),+
        }

        impl $name {
            /// Every word, in declaration order.
            #[allow(dead_code)]
            pub const WORDS: &'static [&'static str] = &[$($word),+];

            /// The word an author writes for this choice.
            #[allow(dead_code)]
            pub fn word(self) -> &'static str {
                match self {
                    $($name::$variant => $word),+
                }
            }
        }

        impl std::fmt::Display for $name {
            fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str(self.word())
            }
        }

        impl Default for $name {
            fn default() -> Self {
                $name::$default
            }
        }

        impl<'de> serde::Deserialize<'de> for $name {
            fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
                let word = String::deserialize(d)?;
                match word.as_str() {
                    $($word => Ok($name::$variant),)+
                    _ => Err(<D::Error as serde::de::Error>::custom(
                        $crate::options::Problem::not_a_choice(&word, $name::WORDS),
                    )),
                }
            }
        }
    };
}

pub(crate) use choice;
