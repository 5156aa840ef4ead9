#include "common/codegen/object_info.h"

#include "absl/strings/str_cat.h"
#include "llvm/Object/ELFObjectFile.h"
#include "llvm/Object/ObjectFile.h"
#include "llvm/TargetParser/Triple.h"

namespace tuneforge::codegen {

absl::StatusOr<ObjectInfo> InspectObject(const std::string& bytes) {
  llvm::Expected<std::unique_ptr<llvm::object::ObjectFile>> file =
      llvm::object::ObjectFile::createObjectFile(llvm::MemoryBufferRef(bytes, "object"));
  if (!file) {
    return absl::InvalidArgumentError(absl::StrCat(
        "not an object file (", llvm::toString(file.takeError()),
        "); pass the bytes of CompiledObject::object unchanged"));
  }
  const llvm::object::ObjectFile& obj = **file;
  ObjectInfo info;
  info.format = obj.getFileFormatName().str();
  info.arch = llvm::Triple::getArchTypeName(obj.getArch()).str();
  info.is_relocatable = obj.isRelocatableObject();
  if (const auto* elf = llvm::dyn_cast<llvm::object::ELFObjectFileBase>(&obj)) {
    info.is_elf = true;
    info.elf_machine = elf->getEMachine();
  }
  for (const llvm::object::SymbolRef& sym : obj.symbols()) {
    llvm::Expected<llvm::StringRef> name = sym.getName();
    llvm::Expected<uint32_t> flags = sym.getFlags();
    llvm::Expected<llvm::object::SymbolRef::Type> type = sym.getType();
    if (!name || !flags || !type) {
      llvm::consumeError(name.takeError());
      llvm::consumeError(flags.takeError());
      llvm::consumeError(type.takeError());
      continue;
    }
    if (name->empty()) continue;
    if (*flags & llvm::object::SymbolRef::SF_Undefined) {
      info.undefined_symbols.push_back(name->str());
    } else if (*type == llvm::object::SymbolRef::ST_Function) {
      info.defined_functions.push_back(name->str());
    }
  }
  return info;
}

}  // namespace tuneforge::codegen
