// The std::visit helper: std::visit(Overloaded{[](const A&) {...}, ...}, v).
#pragma once

namespace tuneforge {

template <class... Ts>
struct Overloaded : Ts... {
  using Ts::operator()...;
};
template <class... Ts>
Overloaded(Ts...) -> Overloaded<Ts...>;

}  // namespace tuneforge
