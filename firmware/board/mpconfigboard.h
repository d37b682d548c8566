// The stock Pico board, named so that the REPL banner (and os.uname().machine) says which
// Mancala firmware the image carries: "... ; Mancala board 0.1.0 (Raspberry Pi Pico) with RP2040".
#include "boards/RPI_PICO/mpconfigboard.h"

#undef MICROPY_HW_BOARD_NAME
#define MICROPY_HW_BOARD_NAME "Mancala board " MANCALA_VERSION " (Raspberry Pi Pico)"
