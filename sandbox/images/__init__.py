"""Sandbox images built locally (no registry is assumed): the Debian base image and derived Python environments."""

from taskforge.sandbox.images.base import build_base_image
from taskforge.sandbox.images.build import ImageBuild, ImageBuildError
from taskforge.sandbox.images.env import build_python_env_image
from taskforge.sandbox.images.recipe import PYTHON_ENVS, BaseRecipe, PythonEnvRecipe

__all__ = ["PYTHON_ENVS", "BaseRecipe", "ImageBuild", "ImageBuildError", "PythonEnvRecipe", "build_base_image",
           "build_python_env_image"]
