metadata(
    description="MPR121 touch controller and WS2812 (PIO + DMA) LED drivers.",
    version="0.1.0",
)

package("drivers", files=("__init__.py", "compat.py", "irqline.py", "mpr121.py", "ws2812.py"), base_path="..")
# const() and the wrapping ticks_*, which both drivers import: a top-level package of its own.
package("mpcompat", base_path="..")
