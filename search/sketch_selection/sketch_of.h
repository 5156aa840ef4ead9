// Which sketch a program was built from. Annotation and mutations change a
// sketch's steps in place (split lengths, compute locations) and append
// their own after it, so a program of a sketch starts with steps of the
// sketch's shape: the same kinds on the same stages, the same loops split
// into as many parts, the same loop orders.
#pragma once

#include <vector>

#include "common/schedule/state.h"
#include "common/schedule/steps.h"

namespace tuneforge::search {

// The index in `sketches` of the sketch `steps` starts like (the one with
// the most steps when several do); -1 when none.
int SketchIndexOf(const std::vector<schedule::Step>& steps, const std::vector<schedule::State>& sketches);

}  // namespace tuneforge::search
