# The Mancala board's image: a Raspberry Pi Pico (RPI_PICO) running MicroPython, with the
# firmware frozen in by manifest.py.  `make firmware` builds it (host_tools/mancala_host/flashing/
# imagebuild.py) and passes MANCALA_VERSION, the firmware version the banner names.
include(${MICROPY_PORT_DIR}/boards/RPI_PICO/mpconfigboard.cmake)
set(MICROPY_BOARD_PINS ${MICROPY_PORT_DIR}/boards/RPI_PICO/pins.csv)
set(MICROPY_FROZEN_MANIFEST ${MICROPY_BOARD_DIR}/manifest.py)
if(NOT MANCALA_VERSION)
    message(FATAL_ERROR "MANCALA_VERSION is not set: build the image with 'make firmware'")
endif()
list(APPEND MICROPY_DEF_BOARD MANCALA_VERSION="${MANCALA_VERSION}")
