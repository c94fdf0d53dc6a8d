"""Real data in, typed datasets out. Reads only files shipped inside installed packages
or paths the user passes; never downloads."""
from ._base import ADAPTERS
from .causal_tables import load_nhefs, load_nsw, load_thornton_hiv
from .graphs import GRAPH_NAMES, load_graph
from .images import NATURAL_IMAGE_NAMES, load_natural_image_patches, load_natural_images
from .text import load_lee_corpus, load_lee_similarity, load_word_pairs

__all__ = [
    "ADAPTERS", "load_nhefs", "load_nsw", "load_thornton_hiv", "load_graph", "GRAPH_NAMES",
    "load_natural_images", "load_natural_image_patches", "NATURAL_IMAGE_NAMES", "load_lee_corpus",
    "load_lee_similarity", "load_word_pairs",
]

try:  # the kernels method ships the user-recording adapter
    from .recordings import *  # noqa: F401,F403
    from . import recordings as _rec

    __all__ += list(getattr(_rec, "__all__", []))
except ModuleNotFoundError as _exc:  # pragma: no cover - only before that module exists
    if _exc.name != f"{__name__}.recordings":
        raise

# 3-D data (geom): ViSP multi-view/sequences, CGAL meshes/point clouds, Middlebury stereo, pyvista, DeepMimic
from ._geom3d import (cgal_names, load_castle_simu, load_cgal_mesh, load_cgal_point_cloud, load_deepmimic_clip,
                      load_pyvista_mesh, load_stereo_motorcycle, load_visp_sequence)

__all__ += ["load_castle_simu", "load_visp_sequence", "load_cgal_mesh", "load_cgal_point_cloud", "cgal_names",
            "load_stereo_motorcycle", "load_pyvista_mesh", "load_deepmimic_clip"]

# images for the nn layer and the wave-2 methods: Fashion-MNIST, the MNIST subset, digits, the CIFAR-10 CNN, corruptions
from .corruptions import CIFAR_C_CONSTANTS, CIFAR_C_CORRUPTIONS, CORRUPTIONS, corrupt_images
from .vision import (CIFAR10_CLASSES, FASHION_MNIST_CLASSES, load_cifar10_cnn, load_fashion_mnist, load_mnist_subset,
                     load_sklearn_digits)

__all__ += ["load_fashion_mnist", "load_mnist_subset", "load_sklearn_digits", "load_cifar10_cnn",
            "FASHION_MNIST_CLASSES", "CIFAR10_CLASSES", "corrupt_images", "CORRUPTIONS", "CIFAR_C_CORRUPTIONS",
            "CIFAR_C_CONSTANTS"]

# tasks and bodies for the wave-2 methods: CHAMP, HumanEval and its sandboxed runner, MuJoCo / DeepMimic humanoids
from .bodies import (DEEPMIMIC_SCALE, DEEPMIMIC_TO_MUJOCO, Joint, MotionFK, Skeleton, deepmimic_forward_kinematics,
                     humanoid_model_names, load_deepmimic_skeleton, load_humanoid_skeleton, load_mujoco_model)
from .llm_tasks import (CHAMP_MODELS, CHAMP_SETTINGS, ChampConcept, ChampConversation, ChampHint, ChampMessage,
                        ChampProblem, ChampStep, FirstWrongStep, HumanEvalProblem, champ_answer_kind, champ_problem,
                        grade_champ_answer, humaneval_problem, load_champ, load_champ_conversations,
                        load_champ_first_wrong_steps, load_humaneval)
from .sandbox import (SANDBOX_STATUSES, SandboxResult, network_isolation, run_humaneval, run_humaneval_batch, run_many,
                      run_python)

__all__ += ["CHAMP_MODELS", "CHAMP_SETTINGS", "ChampConcept", "ChampConversation", "ChampHint", "ChampMessage",
            "ChampProblem", "ChampStep", "FirstWrongStep", "HumanEvalProblem", "champ_answer_kind", "champ_problem",
            "grade_champ_answer", "humaneval_problem", "load_champ", "load_champ_conversations",
            "load_champ_first_wrong_steps", "load_humaneval", "SANDBOX_STATUSES", "SandboxResult",
            "network_isolation", "run_humaneval", "run_humaneval_batch", "run_many", "run_python",
            "DEEPMIMIC_SCALE", "DEEPMIMIC_TO_MUJOCO", "Joint", "MotionFK", "Skeleton",
            "deepmimic_forward_kinematics", "humanoid_model_names", "load_deepmimic_skeleton",
            "load_humanoid_skeleton", "load_mujoco_model"]

# microscopy (microsim): scikit-image's cell, stardist's nuclei images with masks
from .microscopy import STARDIST_IMAGES, MicroscopyImage, load_cell_image, load_stardist_nuclei

__all__ += ["STARDIST_IMAGES", "MicroscopyImage", "load_cell_image", "load_stardist_nuclei"]

# distill: CHAMP's four LLM teachers as graded multi-teacher records
from .champ_teachers import champ_teacher_records, load_champ_teachers

__all__ += ["champ_teacher_records", "load_champ_teachers"]
