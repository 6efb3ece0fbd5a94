"""Physical constants in SI, exact by definition in the 2019 SI (BIPM, SI Brochure, 9th ed., 2019)."""

SPEED_OF_LIGHT_M_PER_S = 299_792_458.0
PLANCK_J_S = 6.626_070_15e-34

# Single-mode fiber group index at 1310–1550 nm: 1.468, i.e. 4.9 ns of delay per metre (ITU-T G.652 fiber
# datasheets, e.g. Corning SMF-28 [verbatim]).
FIBER_GROUP_INDEX = 1.468
