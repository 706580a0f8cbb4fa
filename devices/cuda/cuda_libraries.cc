#include "devices/cuda/cuda_libraries.h"

#include <dlfcn.h>

#include <atomic>
#include <cassert>
#include <string>
#include <string_view>

namespace sy::cuda {
namespace {

#define SY_STRINGIFY2(x) #x
#define SY_STRINGIFY(x) SY_STRINGIFY2(x)

// Where the build found the toolkit and cuDNN (CMake), ':'-separated: the
// executables carry no RUNPATH to them, since they link neither.
#ifndef SY_CUDA_LIBRARY_DIRS
#define SY_CUDA_LIBRARY_DIRS ""
#endif

struct Opened {
  void* lib = nullptr;
  std::string why;  // the loader's reasons, when lib is null
};

Opened open_library(const std::string& soname) {
  Opened o;
  o.lib = dlopen(soname.c_str(), RTLD_NOW | RTLD_LOCAL);  // RTLD_LOCAL: nothing else binds to it
  if (o.lib) return o;
  o.why = dlerror();
  std::string_view dirs = SY_CUDA_LIBRARY_DIRS;
  while (!o.lib && !dirs.empty()) {
    const size_t colon = dirs.find(':');
    const std::string dir(dirs.substr(0, colon));
    dirs = colon == std::string_view::npos ? std::string_view() : dirs.substr(colon + 1);
    if (dir.empty()) continue;
    o.lib = dlopen((dir + "/" + soname).c_str(), RTLD_NOW | RTLD_LOCAL);
    if (!o.lib) o.why += std::string("; ") + dlerror();
  }
  return o;
}

template <typename F>
void bind(void* lib, const char* name, F& fn, std::string& missing) {
  fn = reinterpret_cast<F>(dlsym(lib, name));
  if (!fn) missing += std::string(missing.empty() ? "" : ", ") + name;
}

// Opens `soname` and binds every function BIND names; the library stays
// loaded for the life of the process (handles made from it live in devices
// until exit).
template <typename Api, typename Bind>
StatusOr<Api> load(const char* what, const std::string& soname, Bind&& bind_all) {
  Opened o = open_library(soname);
  if (!o.lib) return Unimplemented(what, " could not be loaded: ", o.why);
  Api api;
  std::string missing;
  bind_all(o.lib, api, missing);
  if (!missing.empty()) {
    dlclose(o.lib);
    return Unimplemented(what, " (", soname, ") lacks ", missing, ": it is older than the headers this build used");
  }
  Dl_info info{};
  api.path = dladdr(reinterpret_cast<void*>(api.Create), &info) && info.dli_fname ? info.dli_fname : soname;
  return api;
}

#define SY_CUDA_LIB_BIND(member, fn) bind(lib, #fn, api.member, missing);

std::atomic<const CublasApi*> g_cublas{nullptr};
std::atomic<const CudnnApi*> g_cudnn{nullptr};

// Makes a successful load visible to loaded().
template <typename Api>
StatusOr<const Api*> publish(const StatusOr<Api>& api, std::atomic<const Api*>& loaded) {
  if (!api.ok()) return api.status();
  loaded.store(&*api, std::memory_order_release);
  return &*api;
}

}  // namespace

StatusOr<const CublasApi*> CublasApi::get() {
  static const StatusOr<CublasApi> api =
      load<CublasApi>("cuBLAS", "libcublas.so." SY_STRINGIFY(CUBLAS_VER_MAJOR),
                      [](void* lib, CublasApi& api, std::string& missing) { SY_CUBLAS_FUNCTIONS(SY_CUDA_LIB_BIND) });
  return publish(api, g_cublas);
}

StatusOr<const CudnnApi*> CudnnApi::get() {
  static const StatusOr<CudnnApi> api =
      load<CudnnApi>("cuDNN", "libcudnn.so." SY_STRINGIFY(CUDNN_MAJOR),
                     [](void* lib, CudnnApi& api, std::string& missing) { SY_CUDNN_FUNCTIONS(SY_CUDA_LIB_BIND) });
  return publish(api, g_cudnn);
}

const CublasApi* CublasApi::loaded() { return g_cublas.load(std::memory_order_acquire); }
const CudnnApi* CudnnApi::loaded() { return g_cudnn.load(std::memory_order_acquire); }

const CublasApi& cublas_api() {
  const CublasApi* api = CublasApi::loaded();
  assert(api && "cuBLAS used before CublasApi::get() succeeded");
  return *api;
}

const CudnnApi& cudnn_api() {
  const CudnnApi* api = CudnnApi::loaded();
  assert(api && "cuDNN used before CudnnApi::get() succeeded");
  return *api;
}

}  // namespace sy::cuda
