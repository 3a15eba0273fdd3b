// Everything is in include/CLookupSupport.h (inline); SwiftPM needs one source file per C target.
#include "CLookupSupport.h"
