#include "devices/cuda/cublas_api.h"

#include <cuda_runtime.h>
#include <dlfcn.h>

#include <atomic>
#include <string>

namespace sy::cuda {
namespace {

#define SY_STRINGIFY2(x) #x
#define SY_STRINGIFY(x) SY_STRINGIFY2(x)
constexpr const char* kSoname = "libcublas.so." SY_STRINGIFY(CUBLAS_VER_MAJOR);

std::atomic<const CublasApi*> g_loaded{nullptr};

// The folder of the loaded libcudart, with a trailing slash; empty if unknown.
std::string cudart_folder() {
  Dl_info info{};
  if (!dladdr(reinterpret_cast<void*>(&cudaGetDeviceCount), &info) || !info.dli_fname) return {};
  std::string path = info.dli_fname;
  size_t slash = path.rfind('/');
  return slash == std::string::npos ? std::string() : path.substr(0, slash + 1);
}

template <typename F>
bool bind(void* lib, const char* name, F& fn, std::string& missing) {
  fn = reinterpret_cast<F>(dlsym(lib, name));
  if (!fn) missing += std::string(missing.empty() ? "" : ", ") + name;
  return fn != nullptr;
}

StatusOr<CublasApi> load() {
  // RTLD_LOCAL: nothing else in the process should resolve against it.
  void* lib = dlopen(kSoname, RTLD_NOW | RTLD_LOCAL);
  std::string why = lib ? "" : dlerror();
  if (!lib) {
    if (std::string folder = cudart_folder(); !folder.empty()) {
      lib = dlopen((folder + kSoname).c_str(), RTLD_NOW | RTLD_LOCAL);
      if (!lib) why += std::string("; ") + dlerror();
    }
  }
  // Unimplemented: a kernel that needs cuBLAS then declines, and its node
  // runs on a CPU (run_loop.cc, fall_back_to_cpu) instead of failing the run.
  if (!lib) return Unimplemented("cuBLAS could not be loaded: ", why);
  CublasApi api;
  std::string missing;
  bind(lib, "cublasCreate_v2", api.Create, missing);
  bind(lib, "cublasDestroy_v2", api.Destroy, missing);
  bind(lib, "cublasSetStream_v2", api.SetStream, missing);
  bind(lib, "cublasSetPointerMode_v2", api.SetPointerMode, missing);
  bind(lib, "cublasGemmEx_64", api.GemmEx_64, missing);
  bind(lib, "cublasGemmStridedBatchedEx_64", api.GemmStridedBatchedEx_64, missing);
  bind(lib, "cublasGetStatusString", api.GetStatusString, missing);
  if (!missing.empty()) {
    dlclose(lib);
    return Unimplemented("cuBLAS (", kSoname, ") lacks ", missing, ": it is older than the headers this build used");
  }
  Dl_info info{};
  api.path = dladdr(reinterpret_cast<void*>(api.Create), &info) && info.dli_fname ? info.dli_fname : kSoname;
  // The library stays loaded for the life of the process: handles made
  // from it live in devices until exit.
  return api;
}

}  // namespace

StatusOr<const CublasApi*> CublasApi::get() {
  static const StatusOr<CublasApi> api = load();
  if (!api.ok()) return api.status();
  g_loaded.store(&*api, std::memory_order_release);
  return &*api;
}

const CublasApi* CublasApi::loaded() { return g_loaded.load(std::memory_order_acquire); }

}  // namespace sy::cuda
