"""Physical constants in SI, exact by definition in the 2019 SI (BIPM, SI Brochure, 9th ed., 2019)."""

SPEED_OF_LIGHT_M_PER_S = 299_792_458.0
PLANCK_J_S = 6.626_070_15e-34
