"""Arena projects: an arena config and the PromptKit files it names, as one workspace.

``project`` loads and models a project, ``compile`` builds the pack ``packc`` would
make of it with every value's origin, ``check`` runs the project's rules and every
pack rule on the compiled pack and places each problem in the source file.
"""
