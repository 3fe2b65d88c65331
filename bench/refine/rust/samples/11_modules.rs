pub mod geometry {
    pub mod units {
        pub const METERS_PER_FOOT: f64 = 0.3048;

        pub fn feet_to_meters(feet: f64) -> f64 {
            feet * METERS_PER_FOOT
        }
    }

    pub use self::units::feet_to_meters;
}

mod private {
    pub(crate) fn helper() -> u32 {
        42
    }
}

pub use geometry::units;

pub fn answer() -> u32 {
    private::helper()
}
