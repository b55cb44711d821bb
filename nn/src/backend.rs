//! Where the network runs. The choice is one enum value, [`Backend`]; every other line of the
//! crate is the same on every backend, because burn 0.22 tensors carry their backend in their
//! [`Device`].
//!
//! `flex` (burn's pure-Rust CPU backend with SIMD and rayon) is always compiled in and is the
//! default; the cargo features `wgpu` and `cuda` add the GPU backends, and `ndarray` adds the
//! older CPU backend for comparison benchmarks.

use crate::NnError;
use burn::prelude::Device;
use std::fmt;
use std::str::FromStr;

/// A compute backend.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Backend {
    /// burn's `flex` CPU backend: the fastest measured on CPU (see the crate's benchmarks).
    Flex,
    /// Any GPU through wgpu (Vulkan, Metal, DirectX, WebGPU); cargo feature `wgpu`.
    Wgpu,
    /// An NVIDIA GPU through CUDA; cargo feature `cuda`.
    Cuda,
    /// burn's older `ndarray` CPU backend; cargo feature `ndarray`, for comparisons only.
    NdArray,
}

impl Backend {
    /// Every backend, in order of preference when all are available.
    pub const ALL: [Backend; 4] = [Backend::Cuda, Backend::Wgpu, Backend::Flex, Backend::NdArray];

    /// The default: the fastest CPU backend.
    pub const DEFAULT: Backend = Backend::Flex;

    /// The name used on command lines and in reports.
    pub const fn name(self) -> &'static str {
        match self {
            Backend::Flex => "flex",
            Backend::Wgpu => "wgpu",
            Backend::Cuda => "cuda",
            Backend::NdArray => "ndarray",
        }
    }

    /// Whether this build has the backend.
    pub const fn is_available(self) -> bool {
        match self {
            Backend::Flex => true,
            Backend::Wgpu => cfg!(feature = "wgpu"),
            Backend::Cuda => cfg!(feature = "cuda"),
            Backend::NdArray => cfg!(feature = "ndarray"),
        }
    }

    /// The backends this build has, preferred first.
    pub fn available() -> Vec<Backend> {
        Backend::ALL.into_iter().filter(|b| b.is_available()).collect()
    }

    /// The preferred backend of this build: a GPU one when compiled in, else [`Backend::DEFAULT`].
    pub fn best() -> Backend {
        Backend::available().first().copied().unwrap_or(Backend::DEFAULT)
    }

    /// The device (the first one of its kind), or an error naming the backends compiled in.
    pub fn device(self) -> Result<Device, NnError> {
        match self {
            Backend::Flex => Ok(Device::flex()),
            #[cfg(feature = "wgpu")]
            Backend::Wgpu => Ok(Device::wgpu(Default::default())),
            #[cfg(feature = "cuda")]
            Backend::Cuda => Ok(Device::cuda(0)),
            #[cfg(feature = "ndarray")]
            #[allow(deprecated)]
            Backend::NdArray => Ok(Device::ndarray()),
            #[allow(unreachable_patterns)]
            other => Err(other.unavailable()),
        }
    }

    fn unavailable(self) -> NnError {
        NnError::Backend {
            name: self.name().to_string(),
            available: Backend::available()
                .iter()
                .map(|b| b.name())
                .collect::<Vec<_>>()
                .join(", "),
        }
    }
}

impl fmt::Display for Backend {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl FromStr for Backend {
    type Err = NnError;
    fn from_str(s: &str) -> Result<Backend, NnError> {
        let b = Backend::ALL
            .into_iter()
            .find(|b| b.name() == s)
            .ok_or_else(|| NnError::Backend {
                name: s.to_string(),
                available: Backend::available()
                    .iter()
                    .map(|b| b.name())
                    .collect::<Vec<_>>()
                    .join(", "),
            })?;
        if b.is_available() {
            Ok(b)
        } else {
            Err(b.unavailable())
        }
    }
}

/// The device of [`Backend::DEFAULT`].
pub fn default_device() -> Device {
    Device::flex()
}
