// CUPTI's OpenACC support: an OpenACC runtime that loads the library through
// ACC_PROFLIB calls acc_register_library (injection/openacc_entry.cpp) with
// its registration functions; CUPTI registers its own event callbacks through
// them and writes OpenACC activity records.
#pragma once

#include <string>

namespace cuptitrace {

// Hands the OpenACC runtime's acc_prof_reg, acc_prof_reg (unregister) and
// acc_prof_lookup functions to CUPTI. False, with CUPTI's word in `error`,
// when CUPTI refused them.
bool initializeOpenAcc(void* profRegister, void* profUnregister, void* profLookup, std::string& error);

// Whether CUPTI took an OpenACC runtime's functions already (a runtime
// registers once; a second call is ignored).
void markOpenAccRegistered();
bool openAccRegistered();

}  // namespace cuptitrace
